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
	pg "github.com/pganalyze/pg_query_go/v5"
)

// truncate runs TRUNCATE [TABLE] t [, …]: a DELETE of every row of each
// table, in one statement, so it is atomic and a ROLLBACK undoes it as in
// PostgreSQL. The link drops the data files whose rows are all deleted
// rather than writing deletes for them. Every table's row lock is taken
// before any is read, as PostgreSQL locks them all first. RESTART
// IDENTITY then restarts the sequences the tables' columns own (serial
// and identity columns); a rollback puts them back.
func (s *Session) truncate(ctx context.Context, ts *pg.TruncateStmt, query string) (*Cursor, error) {
	var rvs []*pg.RangeVar
	var keys []link.Key
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
		keys = append(keys, key)
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
	if ts.RestartSeqs {
		for _, key := range keys {
			if err := s.restartOwnedSequences(ctx, key); err != nil {
				return nil, err
			}
		}
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
	if ti.External {
		return link.Key{}, link.ExternalError("truncate", ti.Name)
	}
	if ti.Ref != "" {
		if _, err := plan.WriteTarget(ti, s.loc); err != nil {
			return link.Key{}, err // a tag
		}
		return link.Key{}, pgerr.New(pgerr.FeatureNotSupported, "TRUNCATE of a branch (%s@%s) is not supported", ti.Name, ti.Ref)
	}
	return link.Key{NS: ti.Namespace, Name: ti.Name}, nil
}

// restartOwnedSequences restarts the sequences the columns of the table
// key own, as TRUNCATE … RESTART IDENTITY does.
func (s *Session) restartOwnedSequences(ctx context.Context, key link.Key) error {
	seqs, err := s.eng.meta.ListSequences(ctx, key.NS)
	if err != nil {
		return err
	}
	for _, sn := range seqs {
		sq, err := s.eng.meta.Sequence(ctx, key.NS, sn)
		if err != nil {
			continue // dropped meanwhile
		}
		if tbl, _, _ := strings.Cut(sq.OwnedBy, "."); tbl != key.Name {
			continue
		}
		var before meta.Sequence
		err = s.eng.meta.AlterSequence(ctx, key.NS, sn, func(cur meta.Sequence) (meta.Sequence, error) {
			before = cur
			cur.Last, cur.Called = cur.Start, false
			return cur, nil
		})
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("restart sequence %s.%s: %w", key.NS, sn, err)
		}
		name := sn
		s.onRollback(func(ctx context.Context) error {
			return s.eng.meta.AlterSequence(ctx, key.NS, name, func(meta.Sequence) (meta.Sequence, error) { return before, nil })
		})
	}
	return nil
}
