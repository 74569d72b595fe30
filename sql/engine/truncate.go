package engine

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// truncate runs TRUNCATE [TABLE] t [, …]: a DELETE of every row of each
// table, in one statement, so it is atomic and a ROLLBACK undoes it as in
// PostgreSQL. The link drops the data files whose rows are all deleted
// rather than writing deletes for them. Every table's row lock is taken
// before any is read, as PostgreSQL locks them all first.
func (s *Session) truncate(ctx context.Context, ts *pg.TruncateStmt, query string) (*Cursor, error) {
	if ts.RestartSeqs {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE … RESTART IDENTITY is not supported")
	}
	var rvs []*pg.RangeVar
	for _, n := range ts.Relations {
		rv := n.GetRangeVar()
		key, err := s.truncateTarget(ctx, rv)
		if err != nil {
			return nil, err
		}
		if err := s.lockTable(ctx, key); err != nil {
			return nil, err
		}
		rvs = append(rvs, rv)
	}
	cat := s.catalog()
	defer cat.release()
	p := plan.New(ctx, cat, s.exprCtx(), query, nil, nil)
	var qs []*plan.Query
	for _, rv := range rvs {
		q, err := p.Delete(&pg.DeleteStmt{Relation: &pg.RangeVar{Schemaname: rv.Schemaname, Relname: rv.Relname, Inh: true, Location: -1}})
		if err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	_, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		for _, q := range qs {
			if _, err := runWrite(ctx, q.Root, q.Env(), w, nil); err != nil {
				return 0, err
			}
		}
		return 0, nil
	})
	if err != nil {
		return nil, err
	}
	return &Cursor{tag: "TRUNCATE TABLE", sess: s}, nil
}

// truncateTarget resolves a table TRUNCATE empties, with PostgreSQL's
// errors for what is not one.
func (s *Session) truncateTarget(ctx context.Context, rv *pg.RangeVar) (link.Key, error) {
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		if merr := plan.MetaTableWrite(ctx, cat, rv, err, false, false); merr != err {
			return link.Key{}, pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname)
		}
		return link.Key{}, err
	}
	if ti.Sequence || ti.ViewSQL != "" || ti.Table == nil {
		return link.Key{}, pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname)
	}
	if ti.Ref != "" {
		if _, err := plan.WriteTarget(ti, s.loc); err != nil {
			return link.Key{}, err // a tag
		}
		return link.Key{}, pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE of a branch (%s@%s) is not supported", ti.Name, ti.Ref)
	}
	return link.Key{NS: ti.Namespace, Name: ti.Name}, nil
}
