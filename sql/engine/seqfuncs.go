package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// The sequence functions (nextval, currval, setval, lastval), which
// expressions call through expr.Session, and the catalog's view of
// sequences, for the planner (plan.Catalog.CheckSequence) and the catalog
// tables (plan.CatalogInfo.Sequences).

func (c *catalog) Sequences(ctx context.Context, ns string) ([]plan.SequenceInfo, error) {
	names, err := c.e.meta.ListSequences(ctx, ns)
	if err != nil {
		return nil, err
	}
	var out []plan.SequenceInfo
	for _, n := range names {
		sq, err := c.e.meta.Sequence(ctx, ns, n)
		if errors.Is(err, meta.ErrNotFound) {
			continue // dropped meanwhile
		}
		if err != nil {
			return nil, err
		}
		t := types.TInt8
		for k, tb := range seqTypes {
			if tb.name == sq.Type {
				t = types.Of(k)
			}
		}
		out = append(out, plan.SequenceInfo{Namespace: ns, Name: n, Type: t, Start: sq.Start, Increment: sq.Increment,
			Min: sq.Min, Max: sq.Max, Cache: sq.Cache, Cycle: sq.Cycle, OwnedBy: sq.OwnedBy})
	}
	return out, nil
}

func (x exprSession) NextVal(ctx context.Context, name string, n int) ([]int64, error) {
	s := x.s
	key, sq, err := s.resolveSequence(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := s.requireSequence(ctx, name, key, "USAGE", "UPDATE"); err != nil && !s.identitySequence(ctx, key.NS, sq) {
		return nil, err
	}
	vs, err := s.eng.meta.NextSequenceValues(ctx, key.NS, key.Name, n)
	if errors.Is(err, meta.ErrSequenceLimit) {
		sq, _ := s.eng.meta.Sequence(ctx, key.NS, key.Name)
		if sq.Increment > 0 {
			return nil, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", key.Name, sq.Max)
		}
		return nil, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", key.Name, sq.Min)
	}
	if errors.Is(err, meta.ErrNotFound) {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		if s.seqCurr == nil {
			s.seqCurr = map[link.Key]int64{}
		}
		s.seqCurr[key] = vs[len(vs)-1]
		s.seqLast, s.seqLastSet = key, true
	}
	return vs, nil
}

func (x exprSession) CurrVal(ctx context.Context, name string) (int64, error) {
	key, _, err := x.s.resolveSequence(ctx, name)
	if err != nil {
		return 0, err
	}
	if err := x.s.requireSequence(ctx, name, key, "USAGE", "SELECT"); err != nil {
		return 0, err
	}
	v, ok := x.s.seqCurr[key]
	if !ok {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "currval of sequence %q is not yet defined in this session", key.Name)
	}
	return v, nil
}

func (x exprSession) SetVal(ctx context.Context, name string, v int64, called bool) (int64, error) {
	key, sq, err := x.s.resolveSequence(ctx, name)
	if err != nil {
		return 0, err
	}
	if err := x.s.requireSequence(ctx, name, key, "UPDATE"); err != nil {
		return 0, err
	}
	if v < sq.Min || v > sq.Max {
		return 0, pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, key.Name, sq.Min, sq.Max)
	}
	if err := x.s.eng.meta.SetSequenceValue(ctx, key.NS, key.Name, v, called); err != nil {
		return 0, err
	}
	if called {
		// currval follows, as in PostgreSQL, and so lastval when this
		// sequence is the one nextval last used.
		if x.s.seqCurr == nil {
			x.s.seqCurr = map[link.Key]int64{}
		}
		x.s.seqCurr[key] = v
	}
	return v, nil
}

func (x exprSession) LastVal() (int64, error) {
	v, ok := x.s.seqCurr[x.s.seqLast]
	if !x.s.seqLastSet || !ok {
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	}
	if err := x.s.requireSequence(context.Background(), "", x.s.seqLast, "USAGE", "SELECT"); err != nil {
		return 0, err
	}
	return v, nil
}

// identitySequence reports whether sq feeds an identity column, whose
// values PostgreSQL takes without a privilege check (a serial column's
// nextval default is checked as any call).
func (s *Session) identitySequence(ctx context.Context, ns string, sq meta.Sequence) bool {
	table, col, ok := strings.Cut(sq.OwnedBy, ".")
	if !ok {
		return false
	}
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, ns, table)
	if err != nil || ti == nil {
		return false
	}
	for i, c := range ti.Columns {
		if c == col && i < len(ti.Identity) {
			return ti.Identity[i] != ""
		}
	}
	return false
}

// requireSequence fails with 42501 unless the current role holds one of
// privs on the sequence key, as PostgreSQL's sequence functions check
// (nextval: USAGE or UPDATE; currval and lastval: USAGE or SELECT;
// setval: UPDATE), after USAGE on a schema the name spells out.
func (s *Session) requireSequence(ctx context.Context, name string, key link.Key, privs ...string) error {
	if schema, _ := seqName(name); schema != "" {
		if err := s.useSchema(ctx, schema); err != nil {
			return err
		}
	}
	obj := meta.Object{Kind: meta.KindSequence, Schema: key.NS, Name: key.Name}
	for _, p := range privs {
		ok, err := s.allowed(ctx, p, obj)
		if err != nil || ok {
			return err
		}
	}
	return denied(obj)
}

func (c *catalog) CheckSequence(ctx context.Context, name string) error {
	if schema, _ := seqName(name); schema != "" {
		// The regclass lookup of a qualified name needs USAGE first.
		if err := c.s.useSchema(ctx, schema); err != nil {
			return err
		}
	}
	_, _, err := c.s.resolveSequence(ctx, name)
	return err
}

// sequenceRelation is a sequence read as a relation, as in SELECT
// last_value FROM s: a one-row view of its state now (log_cnt, which
// counts PostgreSQL's prefetched WAL values, is always 0). nil when no
// schema of search holds a sequence of that name.
func (c *catalog) sequenceRelation(ctx context.Context, search []string, name string) (*plan.TableInfo, error) {
	for _, ns := range search {
		if c.s.schemaHidden(ns) {
			continue
		}
		sq, err := c.e.meta.Sequence(ctx, ns, name)
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &plan.TableInfo{Namespace: ns, Name: name, Sequence: true,
			Columns:  []string{"last_value", "log_cnt", "is_called"},
			Types:    []types.T{types.TInt8, types.TInt8, types.TBool},
			Required: []bool{true, true, true},
			ViewSQL:  fmt.Sprintf("SELECT %d::bigint AS last_value, 0::bigint AS log_cnt, %t AS is_called", sq.Last, sq.Called),
		}, nil
	}
	return nil, nil
}
