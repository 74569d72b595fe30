package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/storage/icetable"
)

// alterRef runs ALTER TABLE t CREATE|DROP BRANCH|TAG (parse.RefStmt): a
// metadata-only change through link.Manager.Alter, stored at once and
// undone on rollback like the other ALTERs.
//
// CREATE first commits the table's write-log tail into Iceberg, so that
// without AS OF VERSION the new reference holds every row acknowledged so
// far. DROP removes the reference only; snapshots no reference keeps any
// more are left to snapshot expiry.
func (s *Session) alterRef(ctx context.Context, r *parse.RefStmt, q string) (*Cursor, error) {
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	rv := r.Relation
	cat := s.catalog()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	cat.release()
	if err != nil {
		if r.MissingTableOk && pgerr.From(err).Code == pgerr.UndefinedTable {
			s.notice("relation %q does not exist, skipping", rv.Relname)
			return done, nil
		}
		return nil, pgerr.From(err).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	if ti.Table == nil || ti.Ref != "" {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", rv.Relname).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	ns, name := ti.Namespace, ti.Name
	at := func(err *pgerr.Error) *pgerr.Error { return err.WithPosition(r.NamePos) }
	if !r.Create {
		return s.dropRef(ctx, r, ns, name, at, done)
	}
	if err := s.Finish(); err != nil { // a multi-statement query's rows go along
		return nil, err
	}
	if err := s.eng.link.Flush(ctx, ns, name); err != nil {
		return nil, fmt.Errorf("create %s %s: %w", r.What(), r.Name, err)
	}
	cat = s.catalog()
	ti, err = cat.Table(ctx, ns, name)
	cat.release()
	if err != nil {
		return nil, err
	}
	if _, ok := icetable.Ref(ti.Table, r.Name); ok {
		if r.IfNotExists {
			s.notice("branch or tag %q of table %q already exists, skipping", r.Name, name)
			return done, nil
		}
		return nil, at(pgerr.New(duplicateObject, "branch or tag %q of table %q already exists", r.Name, name))
	}
	var id int64
	switch {
	case r.Version != nil:
		id = *r.Version
		if ti.Table.SnapshotByID(id) == nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "table %q has no snapshot %d", name, id).WithPosition(r.NamePos)
		}
	case ti.Table.CurrentSnapshot() == nil:
		return nil, at(pgerr.New(pgerr.ObjectNotInPrerequisiteState, "table %q has no snapshot yet to create %s %q at; insert rows first", name, r.What(), r.Name))
	default:
		id = ti.Table.CurrentSnapshot().SnapshotID
	}
	typ := table.BranchRef
	if r.Tag {
		typ = table.TagRef
	}
	err = s.eng.link.Alter(ctx, ns, name, icetable.CreateRef(r.Name, typ, id, icetable.RefOptions{MaxRefAge: retainDays(r.RetainDays)}))
	if err != nil {
		if errors.Is(err, icetable.ErrRefExists) {
			return nil, at(pgerr.New(duplicateObject, "branch or tag %q of table %q already exists", r.Name, name))
		}
		return nil, fmt.Errorf("create %s %s: %w", r.What(), r.Name, err)
	}
	s.onRollback(func(ctx context.Context) error {
		return s.eng.link.Alter(ctx, ns, name, icetable.DropRef(r.Name))
	})
	return done, nil
}

func (s *Session) dropRef(ctx context.Context, r *parse.RefStmt, ns, name string, at func(*pgerr.Error) *pgerr.Error, done *Cursor) (*Cursor, error) {
	if r.Name == table.MainBranch {
		return nil, at(pgerr.New(pgerr.FeatureNotSupported, "cannot drop branch %q: it is the table's own history", table.MainBranch))
	}
	cat := s.catalog()
	ti, err := cat.Table(ctx, ns, name)
	cat.release()
	if err != nil {
		return nil, err
	}
	old, ok := icetable.Ref(ti.Table, r.Name)
	if !ok {
		if r.IfExists {
			s.notice("%s %q of table %q does not exist, skipping", lowerWhat(r), r.Name, name)
			return done, nil
		}
		return nil, at(pgerr.New(pgerr.UndefinedObject, "%s %q of table %q does not exist", lowerWhat(r), r.Name, name))
	}
	if isTag := old.SnapshotRefType == table.TagRef; isTag != r.Tag {
		kind := "branch"
		if isTag {
			kind = "tag"
		}
		return nil, at(pgerr.New(pgerr.WrongObjectType, "%q of table %q is a %s, not a %s", r.Name, name, kind, lowerWhat(r)))
	}
	if err := s.eng.link.Alter(ctx, ns, name, icetable.DropRef(r.Name)); err != nil {
		if errors.Is(err, icetable.ErrNoRef) {
			return nil, at(pgerr.New(pgerr.UndefinedObject, "%s %q of table %q does not exist", lowerWhat(r), r.Name, name))
		}
		return nil, fmt.Errorf("drop %s %s: %w", r.What(), r.Name, err)
	}
	s.onRollback(func(ctx context.Context) error {
		return s.eng.link.Alter(ctx, ns, name, icetable.RestoreRef(r.Name, old))
	})
	return done, nil
}

func lowerWhat(r *parse.RefStmt) string {
	if r.Tag {
		return "tag"
	}
	return "branch"
}
