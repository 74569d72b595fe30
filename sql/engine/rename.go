package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/storage/link"
)

// rename runs ALTER TABLE … RENAME COLUMN a TO b and ALTER TABLE … RENAME
// TO name.
func (s *Session) rename(ctx context.Context, rs *pg.RenameStmt, q string) (*Cursor, error) {
	done := &Cursor{tag: "ALTER TABLE", sess: s}
	// ALTER TABLE … RENAME TO has renameType TABLE; RENAME COLUMN has
	// renameType COLUMN and relationType TABLE.
	isTable := rs.RenameType == pg.ObjectType_OBJECT_TABLE ||
		rs.RenameType == pg.ObjectType_OBJECT_COLUMN && rs.RelationType == pg.ObjectType_OBJECT_TABLE
	if !isTable {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s … RENAME is not supported", parse.ObjectName(rs.RenameType))
	}
	rv := rs.Relation
	cat := s.catalog()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	cat.release()
	if err != nil {
		if rs.MissingOk && pgerr.From(err).Code == pgerr.UndefinedTable {
			s.notice("relation %q does not exist, skipping", rv.Relname)
			return done, nil
		}
		return nil, pgerr.From(err).WithPosition(parse.CharPos(q, int(rv.Location)))
	}
	if ti.Table == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", ti.Name)
	}
	if ti.External {
		return nil, link.ExternalError("alter", ti.Name)
	}
	if rs.RenameType == pg.ObjectType_OBJECT_TABLE {
		return done, s.renameTable(ctx, link.Key{NS: ti.Namespace, Name: ti.Name}, rs.Newname)
	}
	d := newTableDef(ti)
	i := d.index(rs.Subname)
	if i < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", rs.Subname)
	}
	if d.index(rs.Newname) >= 0 {
		return nil, pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", rs.Newname, ti.Name)
	}
	key := link.Key{NS: ti.Namespace, Name: ti.Name}
	if err := s.refuseColumnViews(ctx, key, rs.Subname, false); err != nil {
		return nil, err
	}
	d.fields[i].Name = rs.Newname
	d.schema = true
	// Partitioning and sort order refer to the column by field ID; the
	// retention column is kept by name.
	if d.prop(PropRetentionColumn) == rs.Subname {
		d.props[PropRetentionColumn] = rs.Newname
	}
	if err := s.commitDef(ctx, ti, d); err != nil {
		return nil, err
	}
	owner := ti.Name + "." + rs.Subname
	err = s.reownSequences(ctx, ti.Namespace, func(o string) (string, bool) { return ti.Name + "." + rs.Newname, o == owner })
	if err != nil {
		return nil, err
	}
	return done, nil
}

// renameTable is ALTER TABLE … RENAME TO: the Iceberg table moves to the
// new name, its rows still in the write log committed into it first (the
// write log's state for a table goes by name), and its metastore settings
// with it. ROLLBACK renames it back.
func (s *Session) renameTable(ctx context.Context, from link.Key, name string) error {
	to := link.Key{NS: from.NS, Name: name}
	for _, t := range s.written {
		if t.Key() == from && t.Rows() > 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename table %q after writing to it in this transaction block; COMMIT first", from.Name)
		}
	}
	cat := s.catalog()
	_, err := cat.Table(ctx, to.NS, to.Name)
	cat.release()
	if err == nil {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	if pgerr.From(err).Code != pgerr.UndefinedTable {
		return err
	}
	deps, err := s.dependents(ctx, []dropObj{{key: from}})
	if err != nil {
		return err
	}
	for _, d := range deps {
		if d.on != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename table %q: view %q reads it by name", from.Name, d.obj.key.Name).
				WithHint("Drop the view, rename the table, and create the view again.")
		}
	}
	if err := s.moveTable(ctx, from, to); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error { return s.moveTable(ctx, to, from) })
	return s.reownSequences(ctx, from.NS, func(o string) (string, bool) {
		col, ok := strings.CutPrefix(o, from.Name+".")
		return to.Name + "." + col, ok
	})
}

// moveTable renames a table and its settings.
func (s *Session) moveTable(ctx context.Context, from, to link.Key) error {
	err := s.eng.link.Rename(ctx, from, to, func() error { return s.eng.store.Rename(ctx, from.NS, from.Name, to.Name) })
	if err != nil {
		return fmt.Errorf("rename table %s to %s: %w", from, to.Name, err)
	}
	s.eng.missing.forget(to)
	settings, err := s.eng.meta.TableSettings(ctx, from.NS, from.Name)
	if errors.Is(err, meta.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.eng.meta.PutTableSettings(ctx, to.NS, to.Name, settings); err != nil {
		return err
	}
	return s.eng.meta.DeleteTableSettings(ctx, from.NS, from.Name)
}
