package engine

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/copyfmt"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// copyOptions reads a COPY statement's options.
func copyOptions(cs *pg.CopyStmt) (copyfmt.Options, error) {
	var o copyfmt.Options
	var delimSet, nullSet, quoteSet, escSet bool
	str := func(d *pg.DefElem) string {
		if d.Arg == nil {
			return ""
		}
		if s := d.Arg.GetString_(); s != nil {
			return s.Sval
		}
		if b := d.Arg.GetBoolean(); b != nil {
			if b.Boolval {
				return "true"
			}
			return "false"
		}
		if i := d.Arg.GetInteger(); i != nil {
			return fmt.Sprint(i.Ival)
		}
		return ""
	}
	oneByte := func(name, v string) (byte, error) {
		if len(v) != 1 {
			return 0, pgerr.New(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", name)
		}
		return v[0], nil
	}
	var err error
	for _, n := range cs.Options {
		d := n.GetDefElem()
		v := str(d)
		switch d.Defname {
		case "format":
			switch strings.ToLower(v) {
			case "text":
				o.Format = copyfmt.Text
			case "csv":
				o.Format = copyfmt.CSV
			case "binary":
				o.Format = copyfmt.Binary
			default:
				return o, pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", v)
			}
		case "delimiter":
			if o.Delimiter, err = oneByte("delimiter", v); err != nil {
				return o, err
			}
			delimSet = true
		case "null":
			o.Null, nullSet = v, true
		case "header":
			switch strings.ToLower(v) {
			case "", "true", "on", "1":
				o.Header = true
			case "false", "off", "0":
			default:
				return o, pgerr.New(pgerr.FeatureNotSupported, "COPY HEADER %s is not supported", v)
			}
		case "quote":
			if o.Quote, err = oneByte("quote", v); err != nil {
				return o, err
			}
			quoteSet = true
		case "escape":
			if o.Escape, err = oneByte("escape", v); err != nil {
				return o, err
			}
			escSet = true
		case "encoding":
			if e := strings.ToUpper(strings.ReplaceAll(v, "-", "")); e != "UTF8" {
				return o, pgerr.New(pgerr.FeatureNotSupported, "COPY encoding %q is not supported; Loam speaks UTF8", v)
			}
		case "freeze":
			// FREEZE marks PostgreSQL's heap tuples frozen at load time
			// (pgbench -i asks for it); Loam's rows have no tuple
			// visibility to freeze, so it changes nothing.
			switch strings.ToLower(v) {
			case "", "true", "on", "1", "false", "off", "0":
			default:
				return o, pgerr.New(pgerr.SyntaxError, "freeze requires a Boolean value")
			}
		default:
			return o, pgerr.New(pgerr.FeatureNotSupported, "COPY option %q is not supported", d.Defname)
		}
	}
	if o.Format != copyfmt.CSV && (quoteSet || escSet || o.Header && o.Format == copyfmt.Binary) {
		return o, pgerr.New(pgerr.FeatureNotSupported, "COPY quote, escape and header are available only in CSV mode")
	}
	o.Defaults(delimSet, nullSet, quoteSet, escSet)
	return o, nil
}

// copyTarget resolves the table and column list of a COPY.
func (s *Session) copyTarget(ctx context.Context, cs *pg.CopyStmt, cat *catalog) (*plan.TableInfo, []int, error) {
	rv := cs.Relation
	if rv.Schemaname != "" {
		// USAGE on the schema first, with no position, as PostgreSQL's
		// COPY looks the name up.
		if err := s.useSchema(ctx, rv.Schemaname); err != nil {
			return nil, nil, err
		}
	}
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, nil, plan.MetaTableWrite(ctx, cat, rv, err, cs.IsFrom, !cs.IsFrom)
	}
	if ti.Sequence {
		return nil, nil, pgerr.New(pgerr.WrongObjectType, "cannot copy to or from sequence %q", ti.Name)
	}
	if ti.ViewSQL != "" {
		return nil, nil, pgerr.New(pgerr.WrongObjectType, "cannot copy from view %q", ti.Name).WithHint("Try the COPY (SELECT ...) TO variant.")
	}
	if ti.External && cs.IsFrom {
		return nil, nil, link.ExternalError("copy to", ti.Name)
	}
	var cols []int
	if len(cs.Attlist) == 0 {
		for i := range ti.Columns {
			cols = append(cols, i)
		}
		return ti, cols, nil
	}
	for _, a := range cs.Attlist {
		name := a.GetString_().Sval
		idx := -1
		for i, c := range ti.Columns {
			if c == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, ti.Name)
		}
		cols = append(cols, idx)
	}
	return ti, cols, nil
}

// prepareCopy describes a COPY statement for the wire layer.
func (s *Session) prepareCopy(ctx context.Context, cs *pg.CopyStmt, p *plan.Planner, cat *catalog) (*CopyInfo, error) {
	if cs.Filename != "" || cs.IsProgram {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "COPY to or from a file or program is not allowed; use STDIN/STDOUT (psql's \\copy)")
	}
	if cs.WhereClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY FROM … WHERE is not supported")
	}
	o, err := copyOptions(cs)
	if err != nil {
		return nil, err
	}
	info := &CopyInfo{In: cs.IsFrom, Binary: o.Format == copyfmt.Binary}
	if cs.Query != nil {
		if cs.IsFrom {
			return nil, pgerr.New(pgerr.SyntaxError, "COPY FROM takes a table, not a query")
		}
		sel := cs.Query.GetSelectStmt()
		if sel == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY (…) TO takes a SELECT")
		}
		q, err := p.Select(sel)
		if err != nil {
			return nil, err
		}
		info.Columns = len(q.Columns)
		return info, nil
	}
	_, cols, err := s.copyTarget(ctx, cs, cat)
	if err != nil {
		return nil, err
	}
	info.Columns = len(cols)
	return info, nil
}

// CopyIn runs a COPY … FROM STDIN, reading the client's data from r (the
// concatenated CopyData payloads; io.EOF at CopyDone). The whole COPY is
// one atomic write: on error nothing of it becomes visible. It returns the
// CommandComplete tag ("COPY 42").
func (s *Session) CopyIn(ctx context.Context, st *Statement, r io.Reader) (string, error) {
	s.startStatement(ctx)
	tag, err := s.copyIn(ctx, st, r)
	if err != nil {
		s.markFailed()
	}
	return tag, err
}

func (s *Session) copyIn(ctx context.Context, st *Statement, r io.Reader) (string, error) {
	if s.tx == 'E' {
		return "", pgerr.New(pgerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	cs := st.prep.stmt.Node.GetCopyStmt()
	if cs == nil || !cs.IsFrom {
		return "", pgerr.New(pgerr.ProtocolViolation, "statement is not COPY FROM STDIN")
	}
	o, err := copyOptions(cs)
	if err != nil {
		return "", err
	}
	if err := s.lockMergeCopy(ctx, cs.Relation); err != nil {
		return "", err
	}
	cat := s.catalog()
	defer cat.release()
	ti, cols, err := s.copyTarget(ctx, cs, cat)
	if err != nil {
		return "", err
	}
	if err := s.checkAccess(ctx, []plan.Access{{Schema: ti.Namespace, Name: ti.Name, Privilege: "INSERT"}}); err != nil {
		return "", err
	}
	ccols := make([]copyfmt.Column, len(cols))
	for k, i := range cols {
		ccols[k] = copyfmt.Column{Name: ti.Columns[i], T: ti.Types[i], Required: ti.Required[i]}
	}
	// Columns left out of the list take their default, else NULL, which
	// NOT NULL forbids.
	listed := map[int]bool{}
	for _, i := range cols {
		listed[i] = true
	}
	defs := map[int]expr.Expr{}
	ec := s.exprCtx()
	for i, d := range ti.Defaults {
		if d != "" && !listed[i] {
			e, err := plan.New(ctx, cat, ec, "", nil, nil).BindDefault(d, ti.Types[i])
			if err != nil {
				return "", err
			}
			defs[i] = e
		}
	}
	for i, req := range ti.Required {
		if req && !listed[i] && defs[i] == nil {
			return "", pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", ti.Columns[i], ti.Name)
		}
	}
	// A NOT NULL violation shows the whole table row, defaults filled in,
	// as PostgreSQL's detail does.
	var describeMu sync.Mutex
	o.Describe = func(rec arrow.RecordBatch, row int) string {
		describeMu.Lock()
		defer describeMu.Unlock()
		one := rec.NewSlice(int64(row), int64(row)+1)
		defer one.Release()
		full := exec.WidenBatch(one, cols, ti.Types)
		if len(defs) > 0 {
			filled, err := fillDefaults(ec, full, defs) // releases full
			if err != nil {
				// A failing default shows as null.
				filled = exec.WidenBatch(one, cols, ti.Types)
			}
			full = filled
		}
		defer full.Release()
		return types.DescribeRow(ti.Types, full.Columns(), 0, s.loc)
	}
	rd := copyfmt.NewReader(r, o, ti.Name, ccols, s.loc)
	defer rd.Close() // returns once nothing reads r any more
	t, err := plan.New(ctx, cat, s.exprCtx(), "", nil, nil).CheckedTarget(ti)
	if err != nil {
		return "", err
	}
	t.Conflict = mergeConflict(ti)
	// COPY is no plan: it writes its batches through the statement's
	// writer itself, as an INSERT's sink does.
	n, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		rw, err := w.Table(ctx, t.NS, t.Table, t.Ref)
		if err != nil {
			return 0, err
		}
		var up *exec.Upserter
		if t.Conflict != nil {
			up = exec.NewUpserter(t, rw, ec)
		}
		var n int64
		for {
			if err := ctx.Err(); err != nil {
				return n, pgerr.Canceled(ctx)
			}
			rec, err := rd.Next()
			if err != nil {
				return n, err
			}
			if rec == nil {
				return n, nil
			}
			full := exec.WidenBatch(rec, cols, ti.Types)
			rec.Release()
			if len(defs) > 0 {
				if full, err = fillDefaults(ec, full, defs); err != nil {
					return n, err
				}
			}
			if up != nil {
				var out arrow.RecordBatch
				if out, err = up.Write(ctx, full); out != nil {
					out.Release()
				}
			} else {
				err = t.Write(rw, full)
			}
			n += full.NumRows()
			full.Release()
			if err != nil {
				return n, err
			}
		}
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("COPY %d", n), nil
}

// CopyOut runs a COPY … TO STDOUT, writing the data to w in pieces the
// wire layer sends as CopyData messages (each Write is one row, as
// PostgreSQL sends them).
func (s *Session) CopyOut(ctx context.Context, st *Statement, w io.Writer) (string, error) {
	s.startStatement(ctx)
	tag, err := s.copyOut(ctx, st, w)
	if err != nil {
		s.markFailed()
	}
	return tag, err
}

func (s *Session) copyOut(ctx context.Context, st *Statement, w io.Writer) (string, error) {
	if s.tx == 'E' {
		return "", pgerr.New(pgerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	cs := st.prep.stmt.Node.GetCopyStmt()
	if cs == nil || cs.IsFrom {
		return "", pgerr.New(pgerr.ProtocolViolation, "statement is not COPY TO STDOUT")
	}
	o, err := copyOptions(cs)
	if err != nil {
		return "", err
	}
	cat := s.catalog()
	defer cat.release()
	// The statement's Ctx: the session for set_config or nextval in the
	// query, and now() its transaction's start.
	p := plan.New(ctx, cat, s.exprCtx(), st.prep.query, nil, nil)
	var root exec.Operator
	var names []string
	var ts []types.T
	if cs.Query != nil {
		q, err := p.Select(cs.Query.GetSelectStmt())
		if err != nil {
			return "", err
		}
		if root, err = q.Build(ctx); err != nil {
			return "", err
		}
		for _, c := range q.Columns {
			names = append(names, c.Name)
			ts = append(ts, c.T)
		}
	} else {
		ti, cols, err := s.copyTarget(ctx, cs, cat)
		if err != nil {
			return "", err
		}
		var targets []*pg.Node
		for _, i := range cols {
			names = append(names, ti.Columns[i])
			ts = append(ts, ti.Types[i])
			targets = append(targets, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{
				Fields: []*pg.Node{{Node: &pg.Node_String_{String_: &pg.String{Sval: ti.Columns[i]}}}}}}}}}})
		}
		q, err := p.Select(&pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, TargetList: targets, FromClause: []*pg.Node{{Node: &pg.Node_RangeVar{RangeVar: cs.Relation}}}})
		if err != nil {
			return "", err
		}
		if root, err = q.Build(ctx); err != nil {
			return "", err
		}
	}
	if err := s.checkAccess(ctx, p.Access()); err != nil {
		root.Close()
		return "", err
	}
	wr, err := copyfmt.NewWriter(w, o, names, ts, s.loc)
	if err != nil {
		return "", err
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		return "", err
	}
	defer root.Close()
	for {
		if err := ctx.Err(); err != nil {
			return "", pgerr.Canceled(ctx)
		}
		rec, err := root.Next(ctx)
		if err != nil {
			return "", err
		}
		if rec == nil {
			break
		}
		err = wr.Write(rec)
		rec.Release()
		if err != nil {
			return "", err
		}
	}
	if err := wr.Finish(); err != nil {
		return "", err
	}
	return fmt.Sprintf("COPY %d", wr.Rows()), nil
}

// fillDefaults replaces the columns of rec that defs has expressions for
// with the expressions' values, evaluated per row. It releases rec.
func fillDefaults(ec *expr.Ctx, rec arrow.RecordBatch, defs map[int]expr.Expr) (arrow.RecordBatch, error) {
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		if e := defs[i]; e != nil {
			a, err := e.Eval(ec, rec)
			if err != nil {
				for _, c := range cols[:i] {
					c.Release()
				}
				return nil, err
			}
			cols[i] = a
		} else {
			cols[i] = rec.Column(i)
			cols[i].Retain()
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
