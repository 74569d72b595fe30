package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Sequences live in the metastore (meta.Sequence), where every server on
// the catalog takes values from the same row: nextval is never rolled
// back, as in PostgreSQL. currval and lastval are the session's own.

// seqTypes are the integer types a sequence may have, with their bounds.
var seqTypes = map[types.Kind]struct {
	name     string
	min, max int64
}{
	types.Int2: {"smallint", math.MinInt16, math.MaxInt16},
	types.Int4: {"integer", math.MinInt32, math.MaxInt32},
	types.Int8: {"bigint", math.MinInt64, math.MaxInt64},
}

// seqOptions reads CREATE SEQUENCE's options (or an identity column's) into
// a sequence definition of integer type t, checked as PostgreSQL's
// init_params checks them; the state is "start, not yet called".
func seqOptions(opts []*pg.Node, t types.T, q string) (meta.Sequence, error) {
	var (
		inc             int64 = 1
		start, min, max *int64
		cache           int64 = 1
		cycle           bool
		ownedBy         string
	)
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		at := parse.CharPos(q, int(d.Location))
		num := func() (int64, error) { return defInt(d, at) }
		var err error
		switch d.Defname {
		case "as":
			if t, err = plan.TypeOf(d.Arg.GetTypeName(), q); err != nil {
				return meta.Sequence{}, err
			}
			if _, ok := seqTypes[t.Kind]; !ok {
				return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint").WithPosition(at)
			}
		case "increment":
			inc, err = num()
		case "start":
			var v int64
			v, err = num()
			start = &v
		case "minvalue":
			if d.Arg == nil {
				continue // NO MINVALUE: the default
			}
			var v int64
			v, err = num()
			min = &v
		case "maxvalue":
			if d.Arg == nil {
				continue
			}
			var v int64
			v, err = num()
			max = &v
		case "cache":
			cache, err = num()
		case "cycle":
			cycle = d.Arg.GetBoolean().GetBoolval()
		case "owned_by":
			// OWNED BY NONE, or a column: recorded for DROP TABLE.
			var names []string
			for _, n := range d.Arg.GetList().GetItems() {
				names = append(names, n.GetString_().Sval)
			}
			if len(names) >= 2 {
				ownedBy = names[len(names)-2] + "." + names[len(names)-1]
			}
		case "sequence_name":
		default:
			return meta.Sequence{}, pgerr.New(pgerr.FeatureNotSupported, "sequence option %s is not supported", d.Defname).WithPosition(at)
		}
		if err != nil {
			return meta.Sequence{}, err
		}
	}
	tb := seqTypes[t.Kind]
	if inc == 0 {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
	}
	if cache <= 0 {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "CACHE (%d) must be greater than zero", cache)
	}
	sq := meta.Sequence{Type: tb.name, Increment: inc, Cache: cache, Cycle: cycle, OwnedBy: ownedBy}
	// Defaults: ascending from 1 to the type's maximum, descending from -1
	// to its minimum.
	if inc > 0 {
		sq.Min, sq.Max = 1, tb.max
	} else {
		sq.Min, sq.Max = tb.min, -1
	}
	if min != nil {
		sq.Min = *min
	}
	if max != nil {
		sq.Max = *max
	}
	if sq.Max < tb.min || sq.Max > tb.max {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", sq.Max, tb.name)
	}
	if sq.Min < tb.min || sq.Min > tb.max {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", sq.Min, tb.name)
	}
	if sq.Min >= sq.Max {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", sq.Min, sq.Max)
	}
	if start != nil {
		sq.Start = *start
	} else if inc > 0 {
		sq.Start = sq.Min
	} else {
		sq.Start = sq.Max
	}
	if sq.Start < sq.Min {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", sq.Start, sq.Min)
	}
	if sq.Start > sq.Max {
		return meta.Sequence{}, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", sq.Start, sq.Max)
	}
	sq.Last = sq.Start
	return sq, nil
}

// createSequence runs CREATE SEQUENCE. The sequence is created at once;
// a transaction block that rolls back drops it again, as it does a table.
func (s *Session) createSequence(ctx context.Context, cs *pg.CreateSeqStmt, q string) (*Cursor, error) {
	rv := cs.Sequence
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary sequences are not supported").WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	ns, err := s.newTableSchema(ctx, rv, q)
	if err != nil {
		return nil, err
	}
	sq, err := seqOptions(cs.Options, types.TInt8, q)
	if err != nil {
		return nil, err
	}
	done := &Cursor{tag: "CREATE SEQUENCE", sess: s}
	if err := s.storeSequence(ctx, ns, rv.Relname, sq); err != nil {
		if pgerr.Code(err) == pgerr.DuplicateTable && cs.IfNotExists {
			s.notice("relation %q already exists, skipping", rv.Relname)
			return done, nil
		}
		return nil, err
	}
	return done, nil
}

// storeSequence creates a sequence, 42P07 when a table, view or sequence
// holds the name, and records it as created by the transaction under way.
func (s *Session) storeSequence(ctx context.Context, ns, name string, sq meta.Sequence) error {
	cat := s.catalog()
	_, err := cat.Table(ctx, ns, name)
	cat.release()
	if err == nil {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if pgerr.Code(err) != pgerr.UndefinedTable {
		return err
	}
	if err := s.eng.meta.CreateSequence(ctx, ns, name, sq); errors.Is(err, meta.ErrExists) {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	} else if err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error {
		if err := s.eng.meta.DropSequence(ctx, ns, name); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return err
		}
		return nil
	})
	return nil
}

// dropSequences runs DROP SEQUENCE. A sequence a column owns (serial,
// identity) goes with its table, not alone.
func (s *Session) dropSequences(ctx context.Context, ds *pg.DropStmt) (*Cursor, error) {
	type target struct {
		ns, name string
		seq      meta.Sequence
	}
	var drop []target
	for _, obj := range ds.Objects {
		var names []string
		for _, n := range obj.GetList().Items {
			names = append(names, n.GetString_().Sval)
		}
		schema, name := "", names[len(names)-1]
		if len(names) > 1 {
			schema = names[len(names)-2]
		}
		ns, sq, err := s.findSequence(ctx, schema, name)
		if pgerr.Code(err) == pgerr.UndefinedTable {
			if ds.MissingOk {
				s.notice("sequence %q does not exist, skipping", name)
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedTable, "sequence %q does not exist", name)
		}
		if err != nil {
			return nil, err
		}
		if tbl, col, ok := strings.Cut(sq.OwnedBy, "."); ok {
			cat := s.catalog()
			_, terr := cat.Table(ctx, ns, tbl)
			cat.release()
			if terr == nil {
				e := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
				e.Detail = fmt.Sprintf("default value for column %s of table %s depends on sequence %s", col, tbl, name)
				return nil, e
			}
		}
		drop = append(drop, target{ns, name, sq})
	}
	for _, t := range drop {
		if err := s.eng.meta.DropSequence(ctx, t.ns, t.name); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return nil, fmt.Errorf("drop sequence %s.%s: %w", t.ns, t.name, err)
		}
		s.undropSequence(t.ns, t.name, t.seq)
	}
	return &Cursor{tag: "DROP SEQUENCE", sess: s}, nil
}

// dropOwnedSequences drops the sequences the columns of table ns.name own.
func (s *Session) dropOwnedSequences(ctx context.Context, ns, name string) error {
	seqs, err := s.eng.meta.ListSequences(ctx, ns)
	if err != nil {
		return err
	}
	for _, sn := range seqs {
		sq, err := s.eng.meta.Sequence(ctx, ns, sn)
		if err != nil {
			continue // dropped meanwhile
		}
		if tbl, _, _ := strings.Cut(sq.OwnedBy, "."); tbl == name {
			if err := s.eng.meta.DropSequence(ctx, ns, sn); err != nil && !errors.Is(err, meta.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// findSequence finds a sequence by schema (or the search path when "")
// and name; 42P01 when there is none.
func (s *Session) findSequence(ctx context.Context, schema, name string) (string, meta.Sequence, error) {
	search := []string{schema}
	if schema == "" {
		search = s.searchPath()
	} else if ok, err := s.namespaceExists(ctx, schema); err != nil {
		return "", meta.Sequence{}, err
	} else if !ok {
		return "", meta.Sequence{}, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", schema)
	}
	for _, ns := range search {
		sq, err := s.eng.meta.Sequence(ctx, ns, name)
		if err == nil {
			return ns, sq, nil
		}
		if !errors.Is(err, meta.ErrNotFound) {
			return "", meta.Sequence{}, err
		}
	}
	return "", meta.Sequence{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// seqName splits a sequence name as nextval's argument gives it: quoted
// parts kept, unquoted ones lower-cased, an optional schema first.
func seqName(text string) (schema, name string) {
	var parts []string
	for rest := strings.TrimSpace(text); rest != ""; {
		var part string
		if strings.HasPrefix(rest, `"`) {
			end := 1
			for end < len(rest) {
				if rest[end] == '"' {
					if end+1 < len(rest) && rest[end+1] == '"' {
						end += 2
						continue
					}
					break
				}
				end++
			}
			part = strings.ReplaceAll(rest[1:min(end, len(rest))], `""`, `"`)
			rest = rest[min(end+1, len(rest)):]
		} else {
			i := strings.IndexByte(rest, '.')
			if i < 0 {
				i = len(rest)
			}
			part, rest = strings.ToLower(rest[:i]), rest[i:]
		}
		parts = append(parts, part)
		rest = strings.TrimPrefix(rest, ".")
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// resolveSequence finds the sequence nextval's argument names.
func (s *Session) resolveSequence(ctx context.Context, text string) (link.Key, meta.Sequence, error) {
	schema, name := seqName(text)
	ns, sq, err := s.findSequence(ctx, schema, name)
	if err != nil {
		if pgerr.Code(err) == pgerr.UndefinedTable {
			err = pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", text)
		}
		return link.Key{}, meta.Sequence{}, err
	}
	return link.Key{NS: ns, Name: name}, sq, nil
}

// dropSchemaSequences drops the sequences of a schema DROP SCHEMA drops:
// with CASCADE, else it fails with 2BP01 as PostgreSQL does for a schema
// that is not empty (a schema holding tables got that error already).
func (s *Session) dropSchemaSequences(ctx context.Context, ns string, cascade, hadTables bool) error {
	seqs, err := s.eng.meta.ListSequences(ctx, ns)
	if err != nil || len(seqs) == 0 {
		return err
	}
	if !cascade && !hadTables {
		var lines []string
		for _, q := range seqs {
			lines = append(lines, fmt.Sprintf("sequence %s.%s depends on schema %s", ns, q, ns))
		}
		e := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", ns).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		e.Detail = strings.Join(lines, "\n")
		return e
	}
	for _, q := range seqs {
		if cascade {
			s.notice("drop cascades to sequence %s.%s", ns, q)
		}
		sq, err := s.eng.meta.Sequence(ctx, ns, q)
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err == nil {
			err = s.eng.meta.DropSequence(ctx, ns, q)
		}
		if err != nil && !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("drop schema %s: sequence %s: %w", ns, q, err)
		}
		s.undropSequence(ns, q, sq)
	}
	return nil
}

// undropSequence records how a rollback brings back a sequence the
// transaction dropped: with its definition and its state at the DROP.
// Unlike a table's DROP, which waits for COMMIT, a sequence goes at once,
// since its values are handed out outside transactions anyway.
func (s *Session) undropSequence(ns, name string, sq meta.Sequence) {
	s.onRollback(func(ctx context.Context) error {
		if err := s.eng.meta.CreateSequence(ctx, ns, name, sq); err != nil && !errors.Is(err, meta.ErrExists) {
			return fmt.Errorf("restore dropped sequence %s.%s: %w", ns, name, err)
		}
		return nil
	})
}
