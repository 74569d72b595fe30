package plan

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/exec/window"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Frame option bits of a WindowDef (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault         = 0x00001
	frameRows               = 0x00004
	frameGroups             = 0x00008
	frameBetween            = 0x00010
	frameStartUnboundedPrec = 0x00020
	frameEndUnboundedFoll   = 0x00100
	frameStartCurrentRow    = 0x00200
	frameEndCurrentRow      = 0x00400
	frameStartOffsetPrec    = 0x00800
	frameEndOffsetPrec      = 0x01000
	frameStartOffsetFoll    = 0x02000
	frameEndOffsetFoll      = 0x04000
	frameExcludeCurrentRow  = 0x08000
	frameExcludeGroup       = 0x10000
	frameExcludeTies        = 0x20000
)

// windowSet collects the window function calls of one SELECT. They are
// computed by one operator after grouping, whose output columns are the
// input's followed by one per call; base is the input width, known only
// once the aggregates are all bound.
type windowSet struct {
	named    map[string]*pg.WindowDef
	specs    []window.Spec
	specKeys []string
	funcs    []window.Func
	funcKeys []string
	base     int
}

func newWindowSet(p *Planner, defs []*pg.Node) (*windowSet, error) {
	ws := &windowSet{named: map[string]*pg.WindowDef{}}
	for _, n := range defs {
		wd := n.GetWindowDef()
		if _, dup := ws.named[wd.Name]; dup {
			return nil, pgerr.New(pgerr.WindowingError, "window %q is already defined", wd.Name).WithPosition(pos(p.query, wd.Location))
		}
		ws.named[wd.Name] = wd
	}
	return ws, nil
}

// winRef is the value of window call k: a column of the window operator's
// output.
type winRef struct {
	ws *windowSet
	k  int
	t  types.T
}

func (e *winRef) Type() types.T  { return e.t }
func (e *winRef) String() string { return "window#" + strconv.Itoa(e.k) }
func (e *winRef) Eval(_ *expr.Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a := b.Column(e.ws.base + e.k)
	a.Retain()
	return a, nil
}

func (ws *windowSet) used() bool { return ws != nil && len(ws.funcs) > 0 }

// operator is the window operator over src; the calls' columns follow
// src's.
func (ws *windowSet) operator(src physical.Node) physical.Node {
	ws.base = len(src.Types())
	return &physical.Window{In: src, Specs: ws.specs, Funcs: ws.funcs}
}

// windowNode computes a block's window calls over its grouped rows.
type windowNode struct {
	in node
	ws *windowSet
}

func (n *windowNode) inputs() []*node { return []*node{&n.in} }
func (n *windowNode) describe() string {
	return "Window computing " + exec.ExprList(n.ws.funcs)
}

// resolve merges a window definition with the named window it refers to,
// as PostgreSQL's transformWindowDefinitions does.
func (b *binder) resolveWindow(wd *pg.WindowDef) (*pg.WindowDef, error) {
	ref := wd.Refname
	if ref == "" && wd.Name != "" && len(wd.PartitionClause) == 0 && len(wd.OrderClause) == 0 && wd.FrameOptions&frameNonDefault == 0 {
		// OVER w
		base, ok := b.win.named[wd.Name]
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "window %q does not exist", wd.Name).WithPosition(pos(b.p.query, wd.Location))
		}
		if base.Refname != "" {
			return b.resolveWindow(base)
		}
		return base, nil
	}
	if ref == "" {
		return wd, nil
	}
	base, ok := b.win.named[ref]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "window %q does not exist", ref).WithPosition(pos(b.p.query, wd.Location))
	}
	if base.Refname != "" {
		var err error
		if base, err = b.resolveWindow(base); err != nil {
			return nil, err
		}
	}
	if len(wd.PartitionClause) > 0 {
		return nil, pgerr.New(pgerr.WindowingError, "cannot override PARTITION BY clause of window %q", ref).WithPosition(pos(b.p.query, wd.Location))
	}
	if len(wd.OrderClause) > 0 && len(base.OrderClause) > 0 {
		return nil, pgerr.New(pgerr.WindowingError, "cannot override ORDER BY clause of window %q", ref).WithPosition(pos(b.p.query, wd.Location))
	}
	if base.FrameOptions&frameNonDefault != 0 {
		return nil, pgerr.New(pgerr.WindowingError, "cannot copy window %q because it has a frame clause", ref).WithPosition(pos(b.p.query, wd.Location))
	}
	out := &pg.WindowDef{PartitionClause: base.PartitionClause, OrderClause: base.OrderClause,
		FrameOptions: wd.FrameOptions, StartOffset: wd.StartOffset, EndOffset: wd.EndOffset, Location: wd.Location}
	if len(wd.OrderClause) > 0 {
		out.OrderClause = wd.OrderClause
	}
	return out, nil
}

// bindWindow binds a call with OVER. Its arguments, PARTITION BY and
// ORDER BY bind like the select list (so over grouped columns and
// aggregates in a grouped query), but may not hold window calls.
func (b *binder) bindWindow(fc *pg.FuncCall) (expr.Expr, error) {
	at := pos(b.p.query, fc.Location)
	if b.win == nil {
		switch {
		case b.inWindow:
			return nil, pgerr.New(pgerr.WindowingError, "window function calls cannot be nested").WithPosition(at)
		case b.where == "aggregate function calls":
			return nil, pgerr.New(pgerr.GroupingError, "aggregate function calls cannot contain window function calls").WithPosition(at)
		}
		return nil, pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", b.where).WithPosition(at)
	}
	ws := b.win
	inner := *b
	inner.win, inner.inWindow = nil, true

	wd, err := b.resolveWindow(fc.Over)
	if err != nil {
		return nil, err
	}
	def := *b
	def.win, def.where = nil, "window definitions"
	spec, key, err := def.windowSpec(wd)
	if err != nil {
		return nil, err
	}
	frame, err := inner.windowFrame(wd, spec)
	if err != nil {
		return nil, err
	}
	f, err := inner.windowFunc(fc)
	if err != nil {
		return nil, err
	}
	f.Frame = frame
	f.Spec = -1
	for i, k := range ws.specKeys {
		if k == key {
			f.Spec = i
		}
	}
	if f.Spec < 0 {
		ws.specs = append(ws.specs, spec)
		ws.specKeys = append(ws.specKeys, key)
		f.Spec = len(ws.specs) - 1
	}
	// The same call twice (say in the select list and ORDER BY) is one
	// column, so that ORDER BY and DISTINCT see it as the same expression.
	fk := funcKey(f)
	for i, k := range ws.funcKeys {
		if k == fk {
			return &winRef{ws: ws, k: i, t: f.T}, nil
		}
	}
	ws.funcs = append(ws.funcs, f)
	ws.funcKeys = append(ws.funcKeys, fk)
	return &winRef{ws: ws, k: len(ws.funcs) - 1, t: f.T}, nil
}

func funcKey(f window.Func) string {
	var k strings.Builder
	k.WriteString(strconv.Itoa(int(f.Kind)) + ":")
	if f.Kind == window.Aggregate {
		k.WriteString(f.Agg.String())
	}
	k.WriteString("(")
	for _, a := range f.Args {
		k.WriteString(a.String() + ",")
	}
	k.WriteString(")" + strconv.Itoa(f.Spec))
	fr := f.Frame
	k.WriteString(" " + strconv.Itoa(int(fr.Mode)) + strconv.Itoa(int(fr.Exclude)))
	for _, bd := range []window.Bound{fr.Start, fr.End} {
		k.WriteString(" " + strconv.Itoa(int(bd.Kind)))
		if bd.Offset != nil {
			k.WriteString(bd.Offset.String())
		}
	}
	return k.String()
}

func (b *binder) windowSpec(wd *pg.WindowDef) (window.Spec, string, error) {
	var s window.Spec
	var key strings.Builder
	for _, n := range wd.PartitionClause {
		e, err := b.bind(n)
		if err != nil {
			return s, "", err
		}
		if e.Type().Kind == types.Unknown {
			e, _ = b.coerce(e, types.TText, nodeLocation(n))
		}
		s.Partition = append(s.Partition, e)
		key.WriteString(e.String() + ";")
	}
	key.WriteString("|")
	for _, n := range wd.OrderClause {
		sb := n.GetSortBy()
		e, err := b.bind(sb.Node)
		if err != nil {
			return s, "", err
		}
		if e.Type().Kind == types.Unknown {
			e, _ = b.coerce(e, types.TText, nodeLocation(sb.Node))
		}
		k := exec.SortKey{Expr: e, Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
		k.NullsFirst = k.Desc
		switch sb.SortbyNulls {
		case pg.SortByNulls_SORTBY_NULLS_FIRST:
			k.NullsFirst = true
		case pg.SortByNulls_SORTBY_NULLS_LAST:
			k.NullsFirst = false
		}
		s.Order = append(s.Order, k)
		key.WriteString(e.String() + " " + strconv.FormatBool(k.Desc) + strconv.FormatBool(k.NullsFirst) + ";")
	}
	return s, key.String(), nil
}

func (b *binder) windowFrame(wd *pg.WindowDef, spec window.Spec) (window.Frame, error) {
	nOrder := len(spec.Order)
	opts := wd.FrameOptions
	if opts&frameNonDefault == 0 {
		return window.DefaultFrame, nil
	}
	at := pos(b.p.query, wd.Location)
	var f window.Frame
	mode := "RANGE"
	switch {
	case opts&frameRows != 0:
		f.Mode, mode = window.Rows, "ROWS"
	case opts&frameGroups != 0:
		f.Mode, mode = window.Groups, "GROUPS"
		if nOrder == 0 {
			return f, pgerr.New(pgerr.WindowingError, "GROUPS mode requires an ORDER BY clause").WithPosition(at)
		}
	}
	offset := func(n *pg.Node) (expr.Expr, error) {
		if f.Mode == window.Range {
			if nOrder != 1 {
				return nil, pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column").WithPosition(at)
			}
		}
		// The offset binds with no columns in scope: a column in it is
		// PostgreSQL's "must not contain variables".
		ob := &binder{p: b.p, sc: newScope(nil), where: "window " + mode}
		var e expr.Expr
		var err error
		if f.Mode == window.Range {
			e, err = ob.rangeOffset(n, spec.Order[0].Expr.Type())
		} else if e, err = ob.bind(n); err == nil {
			e, err = ob.coerce(e, types.TInt8, nodeLocation(n))
		}
		if pgerr.Code(err) == pgerr.UndefinedColumn {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", mode).WithPosition(pos(b.p.query, nodeLocation(n)))
		}
		return e, err
	}
	var err error
	switch {
	case opts&frameStartUnboundedPrec != 0:
		f.Start.Kind = window.UnboundedPreceding
	case opts&frameStartCurrentRow != 0:
		f.Start.Kind = window.CurrentRow
	case opts&frameStartOffsetPrec != 0:
		f.Start.Kind = window.OffsetPreceding
		f.Start.Offset, err = offset(wd.StartOffset)
	case opts&frameStartOffsetFoll != 0:
		f.Start.Kind = window.OffsetFollowing
		f.Start.Offset, err = offset(wd.StartOffset)
	}
	if err != nil {
		return f, err
	}
	switch {
	case opts&frameBetween == 0 || opts&frameEndCurrentRow != 0:
		f.End.Kind = window.CurrentRow
	case opts&frameEndUnboundedFoll != 0:
		f.End.Kind = window.UnboundedFollowing
	case opts&frameEndOffsetPrec != 0:
		f.End.Kind = window.OffsetPreceding
		f.End.Offset, err = offset(wd.EndOffset)
	case opts&frameEndOffsetFoll != 0:
		f.End.Kind = window.OffsetFollowing
		f.End.Offset, err = offset(wd.EndOffset)
	}
	if err != nil {
		return f, err
	}
	switch {
	case opts&frameExcludeCurrentRow != 0:
		f.Exclude = window.ExcludeCurrentRow
	case opts&frameExcludeGroup != 0:
		f.Exclude = window.ExcludeGroup
	case opts&frameExcludeTies != 0:
		f.Exclude = window.ExcludeTies
	}
	return f, nil
}

// rangeOffset binds a RANGE offset, whose type follows the order key's:
// integers and floats take integer and float offsets, numeric numeric,
// dates, times, timestamps and intervals an interval.
func (b *binder) rangeOffset(n *pg.Node, key types.T) (expr.Expr, error) {
	at := pos(b.p.query, nodeLocation(n))
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	ot := e.Type()
	var want types.T
	switch key.Kind {
	case types.Int2, types.Int4, types.Int8:
		switch ot.Kind {
		case types.Int2, types.Int4, types.Int8:
			want = types.TInt8
		case types.Unknown:
			want = types.Of(key.Kind) // as PostgreSQL resolves in_range
		}
	case types.Float4, types.Float8:
		if ot.IsNumeric() || ot.Kind == types.Unknown {
			want = types.TFloat8
		}
	case types.Numeric:
		if ot.IsNumeric() && ot.Kind != types.Float4 && ot.Kind != types.Float8 || ot.Kind == types.Unknown {
			want = types.TNumeric
		}
	case types.Date, types.Timestamp, types.TimestampTZ, types.Time, types.Interval:
		// in_range takes an interval offset for every date/time key.
		if ot.Kind == types.Interval || ot.Kind == types.Unknown {
			want = types.TInterval
		}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", key).WithPosition(at)
	}
	if want.Kind == types.Unknown {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", key, ot).
			WithPosition(at).WithHint("Cast the offset value to an appropriate type.")
	}
	return b.coerce(e, want, nodeLocation(n))
}

// windowAggregate binds an aggregate used with OVER. Its arguments bind
// like the select list (already bound in args); DISTINCT and ORDER BY in
// the call are not allowed with OVER, as in PostgreSQL.
func (b *binder) windowAggregate(fc *pg.FuncCall, fn agg.Func, args []expr.Expr, noFunc func() error) (agg.Agg, error) {
	name := funcName(fc)
	at := pos(b.p.query, fc.Location)
	a := agg.Agg{Fn: fn}
	switch {
	case fn.OrderedSet():
		return a, pgerr.New(pgerr.FeatureNotSupported, "OVER is not supported for ordered-set aggregate %s", name).WithPosition(at)
	case fc.AggDistinct:
		return a, pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions").WithPosition(at)
	case len(fc.AggOrder) > 0:
		return a, pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions").WithPosition(at)
	case fn == agg.ApproxPercentile:
		return a, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported as a window function yet", name).WithPosition(at)
	case fc.AggStar:
		if fn != agg.Count {
			return a, pgerr.New(pgerr.SyntaxError, "%s(*) is not a valid aggregate call", name).WithPosition(at)
		}
		a.Fn = agg.CountStar
	default:
		want := 1
		if fn.TwoArgs() {
			want = 2
		}
		if len(args) != want {
			return a, noFunc()
		}
		arg, err := b.untypedAggArg(fn, args[0], fc.Location)
		if err != nil {
			return a, err
		}
		a.Arg = arg
		if fn == agg.StringAgg {
			if !arg.Type().IsString() || !args[1].Type().IsString() {
				return a, noFunc()
			}
			a.Arg, _ = b.coerce(arg, types.TText, fc.Location)
			a.Arg2, _ = b.coerce(args[1], types.TText, fc.Location)
		}
		if fn == agg.JSONObjectAgg || fn == agg.JSONBObjectAgg {
			if a.Arg2, err = b.untypedAggArg(agg.StringAgg, args[1], fc.Location); err != nil {
				return a, err
			}
		}
	}
	if fc.AggFilter != nil {
		fb := *b
		fb.where = "FILTER"
		if b.aggMode && containsAggregate(fc.AggFilter) {
			// Bound outside aggregate mode, the aggregate reports itself
			// as misplaced.
			chk := &binder{p: b.p, sc: b.sc, where: "FILTER"}
			if _, err := chk.bind(fc.AggFilter); err != nil {
				return a, err
			}
		}
		c, err := fb.bind(fc.AggFilter)
		if err != nil {
			return a, err
		}
		if a.Filter, err = fb.coerceBool(c, nodeLocation(fc.AggFilter)); err != nil {
			return a, err
		}
	}
	var argT types.T
	if a.Arg != nil {
		argT = a.Arg.Type()
	}
	t, ok := agg.ResultType(a.Fn, argT)
	if !ok {
		return a, noFunc()
	}
	a.T = t
	return a, nil
}

// windowFunc binds the function of a window call and its arguments.
func (b *binder) windowFunc(fc *pg.FuncCall) (window.Func, error) {
	name := funcName(fc)
	at := pos(b.p.query, fc.Location)
	var f window.Func
	args := make([]expr.Expr, len(fc.Args))
	ts := make([]types.T, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.bind(a)
		if err != nil {
			return f, err
		}
		args[i], ts[i] = e, e.Type()
	}
	noFunc := func() error {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.String()
			if t.Kind == types.Unknown {
				names[i] = "unknown"
			}
		}
		return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", ")).WithPosition(at).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	// isInt says whether argument i can be an integer argument.
	isInt := func(i int) bool {
		k := ts[i].Kind
		return k == types.Int2 || k == types.Int4 || k == types.Unknown
	}
	kind, isWin := window.Kinds[name]
	if !isWin {
		fn, ok := agg.Lookup(name)
		if !ok {
			if _, scalar := expr.Builtins[name]; scalar {
				return f, pgerr.New(pgerr.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name).WithPosition(at)
			}
			return f, noFunc()
		}
		a, err := b.windowAggregate(fc, fn, args, noFunc)
		if err != nil {
			return f, err
		}
		return window.Func{Kind: window.Aggregate, Agg: a, T: a.T}, nil
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return f, pgerr.New(pgerr.WrongObjectType, "%s is not an aggregate function", name).WithPosition(at)
	}
	f.Kind = kind
	coerce := func(i int, t types.T) error {
		var err error
		args[i], err = b.coerce(args[i], t, fc.Location)
		return err
	}
	switch kind {
	case window.RowNumber, window.Rank, window.DenseRank, window.PercentRank, window.CumeDist:
		if len(args) != 0 {
			if kind != window.RowNumber {
				// With arguments these name hypothetical-set aggregates.
				return f, pgerr.New(pgerr.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name).WithPosition(at)
			}
			return f, noFunc()
		}
		f.T = types.TInt8
		if kind == window.PercentRank || kind == window.CumeDist {
			f.T = types.TFloat8
		}
	case window.Ntile:
		if len(args) != 1 || !isInt(0) {
			return f, noFunc()
		}
		if err := coerce(0, types.TInt4); err != nil {
			return f, err
		}
		f.T = types.TInt4
	case window.Lag, window.Lead:
		if len(args) < 1 || len(args) > 3 || (len(args) > 1 && !isInt(1)) {
			return f, noFunc()
		}
		t := ts[0]
		if len(args) == 3 {
			var ok bool
			if t, ok = types.Common(t, ts[2]); !ok {
				return f, noFunc()
			}
		}
		if t.Kind == types.Unknown {
			if len(args) < 3 {
				// lag(anyelement): PostgreSQL cannot type an untyped
				// literal; lag(anycompatible, int, anycompatible) takes
				// text.
				return f, unknownPolymorphic()
			}
			t = types.TText
		}
		if err := coerce(0, t); err != nil {
			return f, err
		}
		if len(args) > 1 {
			if err := coerce(1, types.TInt4); err != nil {
				return f, err
			}
		}
		if len(args) > 2 {
			if err := coerce(2, t); err != nil {
				return f, err
			}
		}
		f.T = args[0].Type()
	case window.FirstValue, window.LastValue, window.NthValue:
		want := 1
		if kind == window.NthValue {
			want = 2
		}
		if len(args) != want || (want == 2 && !isInt(1)) {
			return f, noFunc()
		}
		if ts[0].Kind == types.Unknown {
			return f, unknownPolymorphic()
		}
		if want == 2 {
			if err := coerce(1, types.TInt4); err != nil {
				return f, err
			}
		}
		f.T = args[0].Type()
	}
	f.Args = args
	return f, nil
}

// unknownPolymorphic is PostgreSQL's error for an untyped literal (or NULL)
// as the only argument that fixes an anyelement function's type.
func unknownPolymorphic() error {
	return pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
}
