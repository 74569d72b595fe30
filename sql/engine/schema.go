package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

func (s *Session) createSchemaStmt(ctx context.Context, cs *pg.CreateSchemaStmt) (*Cursor, error) {
	if len(cs.SchemaElts) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA with elements is not supported")
	}
	ns := cs.Schemaname
	if ns == "" && cs.Authrole != nil {
		ns = s.roleSpecName(cs.Authrole) // CREATE SCHEMA AUTHORIZATION role: named after it
	}
	if err := s.refuseSchemaRecreate(ns); err != nil {
		return nil, err
	}
	err := s.eng.store.CreateNamespace(ctx, ns)
	if errors.Is(err, icetable.ErrNamespaceExists) {
		if cs.IfNotExists {
			s.notice("schema %q already exists, skipping", ns)
			return &Cursor{tag: "CREATE SCHEMA", sess: s}, nil
		}
		return nil, pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", ns)
	}
	if err != nil {
		return nil, fmt.Errorf("create schema %s: %w", ns, err)
	}
	// A rollback drops it again, after the tables made in it (undone
	// first); one another session put a table in meanwhile stays.
	s.onRollback(func(ctx context.Context) error { return s.eng.store.DropNamespace(ctx, ns) })
	return &Cursor{tag: "CREATE SCHEMA", sess: s}, nil
}

// schemaContents lists the tables and views of schema ns the session
// sees: not those its transaction dropped, nor tables set aside.
func (s *Session) schemaContents(ctx context.Context, ns string) (tables, views []string, err error) {
	all, err := s.eng.store.ListTables(ctx, ns)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range all {
		if !isAside(t) && !s.hidden(link.Key{NS: ns, Name: t}) {
			tables = append(tables, t)
		}
	}
	all, err = s.eng.meta.ListViews(ctx, ns)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range all {
		if !s.hidden(link.Key{NS: ns, Name: v}) {
			views = append(views, v)
		}
	}
	return tables, views, nil
}

// createSchema is the first schema of the search path that exists, where
// CREATE TABLE puts an unqualified table.
func (s *Session) createSchema(ctx context.Context) (string, error) {
	for _, ns := range s.searchPath() {
		ok, err := s.namespaceExists(ctx, ns)
		if err != nil {
			return "", err
		}
		if !ok {
			continue
		}
		// As PostgreSQL's search_path, leave out what the role may not use.
		if err := s.useSchema(ctx, ns); pgerr.Code(err) == pgerr.InsufficientPrivilege {
			continue
		} else if err != nil {
			return "", err
		}
		return ns, nil
	}
	return "", pgerr.New(pgerr.UndefinedSchema, "no schema has been selected to create in")
}
