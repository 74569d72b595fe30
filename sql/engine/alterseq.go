package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// defInt reads the integer argument of a sequence option (a big one comes
// as a Float node from the parser).
func defInt(d *pg.DefElem, at int) (int64, error) {
	switch {
	case d.Arg.GetInteger() != nil:
		return int64(d.Arg.GetInteger().Ival), nil
	case d.Arg.GetFloat() != nil:
		v, err := strconv.ParseInt(d.Arg.GetFloat().Fval, 10, 64)
		if err != nil {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "%s value %s is out of range for type bigint", strings.ToUpper(d.Defname), d.Arg.GetFloat().Fval).WithPosition(at)
		}
		return v, nil
	}
	return 0, pgerr.New(pgerr.SyntaxError, "%s requires a numeric value", d.Defname).WithPosition(at)
}

// alterSequence runs ALTER SEQUENCE: RESTART [WITH], INCREMENT, MINVALUE,
// MAXVALUE, START, CACHE, [NO] CYCLE, AS and OWNED BY, checked as CREATE
// SEQUENCE's are and applied atomically in the metastore. A rollback puts
// the sequence back as it was.
func (s *Session) alterSequence(ctx context.Context, as *pg.AlterSeqStmt, q string) (*Cursor, error) {
	rv := as.Sequence
	done := &Cursor{tag: "ALTER SEQUENCE", sess: s}
	ns, _, err := s.findSequence(ctx, rv.Schemaname, rv.Relname)
	if pgerr.Code(err) == pgerr.UndefinedTable && as.MissingOk {
		s.notice("relation %q does not exist, skipping", rv.Relname)
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	var before meta.Sequence
	err = s.eng.meta.AlterSequence(ctx, ns, rv.Relname, func(cur meta.Sequence) (meta.Sequence, error) {
		before = cur
		return applySeqOptions(cur, as.Options, q)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname)
	}
	if err != nil {
		return nil, err
	}
	s.onRollback(func(ctx context.Context) error {
		return s.eng.meta.AlterSequence(ctx, ns, rv.Relname, func(meta.Sequence) (meta.Sequence, error) { return before, nil })
	})
	return done, nil
}

// applySeqOptions applies ALTER SEQUENCE's options to a sequence.
func applySeqOptions(q meta.Sequence, opts []*pg.Node, text string) (meta.Sequence, error) {
	typeBounds := func(typ string) (int64, int64) {
		for _, tb := range seqTypes {
			if tb.name == typ {
				return tb.min, tb.max
			}
		}
		return seqTypes[types.Int8].min, seqTypes[types.Int8].max
	}
	var restart *int64
	restarted := false
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		at := parse.CharPos(text, int(d.Location))
		var err error
		switch d.Defname {
		case "as":
			t, terr := plan.TypeOf(d.Arg.GetTypeName(), text)
			if terr != nil {
				return q, terr
			}
			tb, ok := seqTypes[t.Kind]
			if !ok {
				return q, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint").WithPosition(at)
			}
			// Bounds that were the old type's become the new type's.
			oldMin, oldMax := typeBounds(q.Type)
			if q.Max == oldMax {
				q.Max = tb.max
			}
			if q.Min == oldMin {
				q.Min = tb.min
			}
			q.Type = tb.name
		case "increment":
			q.Increment, err = defInt(d, at)
		case "start":
			q.Start, err = defInt(d, at)
		case "restart":
			restarted = true
			if d.Arg != nil {
				var v int64
				v, err = defInt(d, at)
				restart = &v
			}
		case "minvalue":
			if d.Arg == nil {
				q.Min = 1
				if q.Increment < 0 {
					q.Min, _ = typeBounds(q.Type)
				}
				continue
			}
			q.Min, err = defInt(d, at)
		case "maxvalue":
			if d.Arg == nil {
				_, q.Max = typeBounds(q.Type)
				if q.Increment < 0 {
					q.Max = -1
				}
				continue
			}
			q.Max, err = defInt(d, at)
		case "cache":
			q.Cache, err = defInt(d, at)
		case "cycle":
			q.Cycle = d.Arg.GetBoolean().GetBoolval()
		case "owned_by":
			var names []string
			for _, n := range d.Arg.GetList().GetItems() {
				names = append(names, n.GetString_().Sval)
			}
			q.OwnedBy = ""
			if len(names) >= 2 {
				q.OwnedBy = names[len(names)-2] + "." + names[len(names)-1]
			}
		default:
			return q, pgerr.New(pgerr.FeatureNotSupported, "ALTER SEQUENCE option %s is not supported", strings.ToUpper(d.Defname)).WithPosition(at)
		}
		if err != nil {
			return q, err
		}
	}
	tmin, tmax := typeBounds(q.Type)
	switch {
	case q.Increment == 0:
		return q, pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
	case q.Cache <= 0:
		return q, pgerr.New(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", q.Cache)
	case q.Max < tmin || q.Max > tmax:
		return q, pgerr.New(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", q.Max, q.Type)
	case q.Min < tmin || q.Min > tmax:
		return q, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", q.Min, q.Type)
	case q.Min >= q.Max:
		return q, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", q.Min, q.Max)
	case q.Start < q.Min:
		return q, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", q.Start, q.Min)
	case q.Start > q.Max:
		return q, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", q.Start, q.Max)
	}
	if restarted {
		q.Last, q.Called = q.Start, false
		if restart != nil {
			q.Last = *restart
		}
	}
	if q.Last < q.Min {
		return q, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be less than MINVALUE (%d)", q.Last, q.Min)
	}
	if q.Last > q.Max {
		return q, pgerr.New(pgerr.InvalidParameterValue, "RESTART value (%d) cannot be greater than MAXVALUE (%d)", q.Last, q.Max)
	}
	return q, nil
}
