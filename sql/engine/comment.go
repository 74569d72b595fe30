package engine

import (
	"context"
	"errors"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/storage/icetable"
)

// CommentProperty is the Iceberg table property holding COMMENT ON TABLE:
// the key Spark, Trino and PyIceberg read as the table's comment. Column
// comments are the Iceberg fields' doc, which those engines show too.
const CommentProperty = "comment"

// comment runs COMMENT ON TABLE, COLUMN and SCHEMA. The comment is stored
// in Iceberg at once (not at COMMIT), so outside readers see it too; an
// empty comment removes it, as in PostgreSQL.
func (s *Session) comment(ctx context.Context, cs *pg.CommentStmt) (*Cursor, error) {
	var names []string
	if l := cs.Object.GetList(); l != nil {
		for _, n := range l.Items {
			names = append(names, n.GetString_().Sval)
		}
	} else if str := cs.Object.GetString_(); str != nil {
		names = []string{str.Sval}
	}
	done := &Cursor{tag: "COMMENT", sess: s}
	switch cs.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		schema, name := qualified(names)
		ti, err := s.resolveTable(ctx, schema, name)
		if err != nil {
			return nil, err
		}
		text, clauses := splitDumpClauses(cs.Comment)
		if err := s.applyDumpClauses(ctx, ti.Namespace, ti.Name, clauses); err != nil {
			return nil, err
		}
		s.onRollback(func(ctx context.Context) error {
			return s.eng.link.Alter(ctx, ti.Namespace, ti.Name, icetable.SetProperty(CommentProperty, ti.Comment))
		})
		err = s.eng.link.Alter(ctx, ti.Namespace, ti.Name, icetable.SetProperty(CommentProperty, text))
		if err != nil {
			return nil, fmt.Errorf("comment on table %s.%s: %w", ti.Namespace, ti.Name, err)
		}
		return done, nil
	case pg.ObjectType_OBJECT_COLUMN:
		if len(names) < 2 {
			return nil, pgerr.New(pgerr.SyntaxError, "column name must be qualified")
		}
		col := names[len(names)-1]
		schema, name := qualified(names[:len(names)-1])
		ti, err := s.resolveTable(ctx, schema, name)
		if err != nil {
			return nil, err
		}
		prev, found := "", false
		for i, c := range ti.Columns {
			if c == col {
				prev, found = ti.Docs[i], true
			}
		}
		if !found {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, name)
		}
		s.onRollback(func(ctx context.Context) error {
			return s.eng.link.Alter(ctx, ti.Namespace, ti.Name, icetable.SetColumnDoc(col, prev))
		})
		err = s.eng.link.Alter(ctx, ti.Namespace, ti.Name, icetable.SetColumnDoc(col, cs.Comment))
		if err != nil {
			return nil, fmt.Errorf("comment on column %s.%s.%s: %w", ti.Namespace, ti.Name, col, err)
		}
		return done, nil
	case pg.ObjectType_OBJECT_SCHEMA:
		if len(names) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "schema name cannot be qualified")
		}
		prev, _, err := s.catalog().NamespaceComment(ctx, names[0])
		if s.schemaHidden(names[0]) {
			err = icetable.ErrNoSuchNamespace // dropped by the open block
		}
		if err == nil {
			s.onRollback(func(ctx context.Context) error { return s.eng.store.SetNamespaceComment(ctx, names[0], prev) })
			err = s.eng.store.SetNamespaceComment(ctx, names[0], cs.Comment)
		}
		if errors.Is(err, icetable.ErrNoSuchNamespace) {
			return nil, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", names[0])
		}
		if err != nil {
			return nil, fmt.Errorf("comment on schema %s: %w", names[0], err)
		}
		return done, nil
	case pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_TABCONSTRAINT:
		return s.commentNotKept(ctx, cs, names)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "COMMENT ON %s is not supported", objectKind(cs.Objtype))
}

// qualified splits [schema.]name; a database qualifier is dropped.
func qualified(names []string) (schema, name string) {
	name = names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	return schema, name
}

// resolveTable finds a table as a statement would, through the search path.
func (s *Session) resolveTable(ctx context.Context, schema, name string) (*tableRef, error) {
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	if ti.ViewSQL != "" {
		// A view has no Iceberg table to keep comments in (views.go).
		return nil, pgerr.New(pgerr.FeatureNotSupported, "comments on view %q are not supported yet", ti.Name)
	}
	ref := &tableRef{Namespace: ti.Namespace, Name: ti.Name, Columns: ti.Columns}
	if ti.Table != nil {
		ref.Comment = ti.Table.Properties()[CommentProperty]
		sc := ti.Table.Schema()
		for _, c := range ti.Columns {
			f, _ := sc.FindFieldByName(c)
			ref.Docs = append(ref.Docs, f.Doc)
		}
	}
	return ref, nil
}

// tableRef is a table COMMENT changes, with its comments before.
type tableRef struct {
	Namespace, Name string
	Columns         []string
	Comment         string
	Docs            []string
}

// objectKind names an object type as COMMENT ON spells it.
func objectKind(t pg.ObjectType) string { return parse.ObjectName(t) }

// NamespaceComment is a schema's comment (plan.CatalogInfo): its
// namespace property, or PostgreSQL's own for public and pg_catalog while
// none was set.
func (c *catalog) NamespaceComment(ctx context.Context, ns string) (string, bool, error) {
	switch ns {
	case "pg_catalog":
		return "system catalog schema", true, nil
	case "information_schema":
		return "", false, nil
	}
	props, err := c.e.meta.NamespaceProperties(ctx, ns)
	if err != nil {
		return "", false, err
	}
	if v, ok := props[icetable.NamespaceCommentProperty]; ok {
		return v, v != "", nil
	}
	if ns == "public" {
		return "standard public schema", true, nil
	}
	return "", false, nil
}
