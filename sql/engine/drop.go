package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// dropTable removes a table: its rows in the write log, its Iceberg table
// and its Loam settings.
// The metastore drop commits before the files go (icetable.Store.Drop),
// and the write log forgets the table only after both.
func (s *Session) dropTable(ctx context.Context, ns, name string) error {
	err := s.eng.link.Drop(ctx, link.Key{NS: ns, Name: name}, func() error {
		if err := s.eng.store.Drop(ctx, ns, name); err != nil && !errors.Is(err, icetable.ErrNoSuchTable) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop table %s.%s: %w", ns, name, err)
	}
	if err := s.eng.meta.DeleteTableSettings(ctx, ns, name); err != nil {
		return fmt.Errorf("drop table %s.%s: settings: %w", ns, name, err)
	}
	if err := s.dropOwnedSequences(ctx, ns, name); err != nil {
		return fmt.Errorf("drop table %s.%s: sequences: %w", ns, name, err)
	}
	return nil
}

// dropTarget resolves one name of a DROP TABLE or DROP VIEW (what is
// "table" or "view"). A missing one is nil, with a notice, under IF EXISTS.
func (s *Session) dropTarget(ctx context.Context, obj *pg.Node, missingOk bool, what string) (*plan.TableInfo, error) {
	var names []string
	for _, n := range obj.GetList().Items {
		names = append(names, n.GetString_().Sval)
	}
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	cat := s.catalog()
	ti, err := cat.Table(ctx, schema, name)
	cat.release()
	if pgerr.Code(err) == pgerr.UndefinedTable {
		if missingOk {
			s.notice("%s %q does not exist, skipping", what, name)
			return nil, nil
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", what, name)
	}
	return ti, err
}

func (s *Session) drop(ctx context.Context, ds *pg.DropStmt) (*Cursor, error) {
	switch ds.RemoveType {
	case pg.ObjectType_OBJECT_TABLE:
		// Every name resolves, and no view is left reading one, before any
		// table is dropped, as in PostgreSQL.
		var drop []*plan.TableInfo
		for _, obj := range ds.Objects {
			ti, err := s.dropTarget(ctx, obj, ds.MissingOk, "table")
			if err != nil {
				return nil, err
			}
			if ti == nil {
				continue
			}
			if ti.Sequence {
				return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", ti.Name).WithHint("Use DROP SEQUENCE to remove a sequence.")
			}
			if ti.ViewSQL != "" {
				return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", ti.Name).WithHint("Use DROP VIEW to remove a view.")
			}
			drop = append(drop, ti)
		}
		targets := make([]dropObj, len(drop))
		for i, ti := range drop {
			targets[i] = dropObj{key: link.Key{NS: ti.Namespace, Name: ti.Name}}
		}
		if err := s.checkDependents(ctx, targets, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return nil, err
		}
		for _, ti := range drop {
			if err := s.dropLater(ctx, dropTable, link.Key{NS: ti.Namespace, Name: ti.Name}); err != nil {
				return nil, err
			}
		}
		return &Cursor{tag: "DROP TABLE", sess: s}, nil
	case pg.ObjectType_OBJECT_SCHEMA:
		for _, obj := range ds.Objects {
			ns := obj.GetString_().Sval
			ok, err := s.namespaceExists(ctx, ns)
			if err != nil {
				return nil, err
			}
			if !ok {
				if ds.MissingOk {
					s.notice("schema %q does not exist, skipping", ns)
					continue
				}
				return nil, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", ns)
			}
			tables, views, err := s.schemaContents(ctx, ns)
			if err != nil {
				return nil, err
			}
			if len(tables)+len(views) > 0 {
				// The schema's tables, then its views, each followed by the
				// views elsewhere that read it (which go too).
				var targets []dropObj
				for _, t := range tables {
					targets = append(targets, dropObj{key: link.Key{NS: ns, Name: t}})
				}
				for _, v := range views {
					targets = append(targets, dropObj{key: link.Key{NS: ns, Name: v}, isView: true})
				}
				slices.Reverse(targets) // dependents reports the last target first
				deps, err := s.dependents(ctx, targets)
				if err != nil {
					return nil, err
				}
				if err := s.reportDependents(ctx, deps, "schema "+ns, ns, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
					return nil, err
				}
			}
			if err := s.dropSchemaSequences(ctx, ns, ds.Behavior == pg.DropBehavior_DROP_CASCADE, len(tables)+len(views) > 0); err != nil {
				return nil, err
			}
			if err := s.dropSchemaLater(ctx, ns, tables, views); err != nil {
				return nil, err
			}
		}
		return &Cursor{tag: "DROP SCHEMA", sess: s}, nil
	case pg.ObjectType_OBJECT_VIEW:
		return s.dropViews(ctx, ds)
	case pg.ObjectType_OBJECT_SEQUENCE:
		return s.dropSequences(ctx, ds)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported", parse.ObjectName(ds.RemoveType))
}
