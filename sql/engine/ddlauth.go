package engine

import (
	"context"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// authorizeDDL checks, before a statement that is not a query runs, that
// the current role may run it, as PostgreSQL checks: CREATE on the schema
// to create in it, ownership to alter, drop, rename or comment, TRUNCATE
// to truncate, superuser for CHECKPOINT. A name that resolves to nothing
// is left to the statement's own error. after, when not nil, runs once
// the statement succeeded: it records a new object's owner and default
// privileges, or moves or forgets a renamed or dropped object's.
func (s *Session) authorizeDDL(ctx context.Context, n *pg.Node, query string) (after func(context.Context) error, err error) {
	ctx = meta.WithAuthzScope(ctx)
	switch n := n.Node.(type) {
	case *pg.Node_CreateStmt:
		after, err := s.authorizeCreate(ctx, n.CreateStmt.Relation, meta.KindTable, query)
		if err != nil {
			// PostgreSQL points at the name of the table it may not create.
			err = pgerr.From(err).WithPosition(parse.CharPos(query, int(n.CreateStmt.Relation.Location)))
		}
		return after, err
	case *pg.Node_CreateTableAsStmt:
		return s.authorizeCreate(ctx, n.CreateTableAsStmt.Into.GetRel(), meta.KindTable, query)
	case *pg.Node_SelectStmt:
		if into := n.SelectStmt.IntoClause; into != nil {
			return s.authorizeCreate(ctx, into.Rel, meta.KindTable, query)
		}
	case *pg.Node_CreateSeqStmt:
		return s.authorizeCreate(ctx, n.CreateSeqStmt.Sequence, meta.KindSequence, query)
	case *pg.Node_ViewStmt:
		rv := n.ViewStmt.View
		if n.ViewStmt.Replace {
			if obj, kind, ok := s.resolveRelation(ctx, rv); ok {
				// CREATE OR REPLACE of an existing view: CREATE on its
				// schema, then ownership, in PostgreSQL's order.
				if err := s.require(ctx, "CREATE", schemaObject(obj.Schema)); err != nil {
					return nil, err
				}
				return nil, s.requireOwner(ctx, obj, kind)
			}
		}
		return s.authorizeCreate(ctx, rv, meta.KindTable, query)
	case *pg.Node_CreateSchemaStmt:
		return s.authorizeCreateSchema(ctx, n.CreateSchemaStmt)
	case *pg.Node_DropStmt:
		return s.authorizeDrop(ctx, n.DropStmt)
	case *pg.Node_AlterTableStmt:
		return nil, s.requireRelationOwner(ctx, n.AlterTableStmt.Relation)
	case *pg.Node_AlterSeqStmt:
		return nil, s.requireRelationOwner(ctx, n.AlterSeqStmt.Sequence)
	case *pg.Node_IndexStmt:
		return nil, s.requireRelationOwner(ctx, n.IndexStmt.Relation)
	case *pg.Node_RenameStmt:
		return s.authorizeRename(ctx, n.RenameStmt)
	case *pg.Node_CommentStmt:
		return nil, s.authorizeComment(ctx, n.CommentStmt)
	case *pg.Node_TruncateStmt:
		for _, r := range n.TruncateStmt.Relations {
			obj, _, ok, err := s.lookupRelation(ctx, r.GetRangeVar())
			if err != nil {
				return nil, err
			}
			if ok {
				if err := s.require(ctx, "TRUNCATE", obj); err != nil {
					return nil, err
				}
			}
		}
	case *pg.Node_CheckPointStmt:
		return nil, s.requireSuperuser(ctx, "must be superuser or have privileges of pg_checkpoint to do CHECKPOINT")
	}
	return nil, nil
}

// resolveRelation finds the table, view or sequence rv names; ok is false
// when there is none (or rv is nil).
func (s *Session) resolveRelation(ctx context.Context, rv *pg.RangeVar) (obj meta.Object, kindWord string, ok bool) {
	if rv == nil {
		return meta.Object{}, "", false
	}
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	if err != nil || ti == nil || ti.Ref != "" {
		return meta.Object{}, "", false
	}
	obj = tableObject(ti.Namespace, ti.Name)
	switch {
	case ti.Sequence:
		obj.Kind = meta.KindSequence
		return obj, "sequence", true
	case ti.ViewSQL != "":
		return obj, "view", true
	}
	return obj, "table", true
}

// lookupRelation is resolveRelation after the check PostgreSQL's lookup
// of a schema-qualified name makes: USAGE on the schema.
func (s *Session) lookupRelation(ctx context.Context, rv *pg.RangeVar) (obj meta.Object, kindWord string, ok bool, err error) {
	if rv != nil && rv.Schemaname != "" {
		if err := s.useSchema(ctx, rv.Schemaname); err != nil {
			return obj, "", false, err
		}
	}
	obj, kindWord, ok = s.resolveRelation(ctx, rv)
	return obj, kindWord, ok, nil
}

func (s *Session) requireRelationOwner(ctx context.Context, rv *pg.RangeVar) error {
	obj, kind, ok, err := s.lookupRelation(ctx, rv)
	if err != nil || !ok {
		return err
	}
	return s.requireOwner(ctx, obj, kind)
}

// authorizeCreate needs CREATE on the schema a new relation goes into,
// and records its owner once made (not when IF NOT EXISTS found it).
func (s *Session) authorizeCreate(ctx context.Context, rv *pg.RangeVar, kind, query string) (func(context.Context) error, error) {
	if rv == nil {
		return nil, nil
	}
	ns, err := s.newTableSchema(ctx, rv, query)
	if err != nil {
		if rv.Schemaname == "" && pgerr.Code(err) == pgerr.UndefinedSchema {
			return nil, err // no schema to create in: CREATE TABLE's gets its position
		}
		return nil, nil // the statement reports it
	}
	if err := s.require(ctx, "CREATE", schemaObject(ns)); err != nil {
		return nil, err
	}
	if _, _, existed := s.resolveRelation(ctx, &pg.RangeVar{Schemaname: ns, Relname: rv.Relname}); existed {
		return nil, nil
	}
	return func(ctx context.Context) error {
		obj := meta.Object{Kind: kind, Schema: ns, Name: rv.Relname}
		if kind == meta.KindTable {
			if o, _, ok := s.resolveRelation(ctx, &pg.RangeVar{Schemaname: ns, Relname: rv.Relname}); ok {
				obj = o
			}
		}
		return s.created(ctx, obj)
	}, nil
}

func (s *Session) authorizeCreateSchema(ctx context.Context, cs *pg.CreateSchemaStmt) (func(context.Context) error, error) {
	if err := s.requireCreateSchema(ctx); err != nil {
		return nil, err
	}
	ns := cs.Schemaname
	owner := s.currentRole()
	if cs.Authrole != nil {
		owner = s.roleSpecName(cs.Authrole)
		if ns == "" {
			ns = owner
		}
		if _, err := s.roleNamed(ctx, owner); err != nil {
			return nil, err
		}
		if owner != s.currentRole() {
			p, err := s.principal(ctx)
			if err != nil {
				return nil, err
			}
			if !p.Superuser && !s.memberOf(ctx, p.Name, owner, nil) {
				return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be member of role %q", owner)
			}
		}
	}
	if ok, err := s.namespaceExists(ctx, ns); err != nil || ok {
		return nil, err // IF NOT EXISTS, or the statement's 42P06
	}
	return func(ctx context.Context) error {
		obj := schemaObject(ns)
		if err := s.created(ctx, obj); err != nil {
			return err
		}
		if owner != s.currentRole() {
			return s.eng.meta.SetOwner(ctx, obj, owner)
		}
		return nil
	}, nil
}

// authorizeDrop needs ownership of each object dropped, and forgets
// their owners and privileges once dropped.
func (s *Session) authorizeDrop(ctx context.Context, ds *pg.DropStmt) (func(context.Context) error, error) {
	var objs []meta.Object
	for _, o := range ds.Objects {
		switch ds.RemoveType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_MATVIEW:
			items := o.GetList().GetItems()
			rv := &pg.RangeVar{}
			switch len(items) {
			case 1:
				rv.Relname = items[0].GetString_().GetSval()
			case 2:
				rv.Schemaname, rv.Relname = items[0].GetString_().GetSval(), items[1].GetString_().GetSval()
			default:
				continue
			}
			obj, kind, ok, err := s.lookupRelation(ctx, rv)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			// The schema's owner may drop what is in it.
			if own, err := s.owns(ctx, schemaObject(obj.Schema)); err != nil || !own {
				if err := s.requireOwner(ctx, obj, kind); err != nil {
					return nil, err
				}
			}
			objs = append(objs, obj)
		case pg.ObjectType_OBJECT_SCHEMA:
			ns := o.GetString_().GetSval()
			if ok, err := s.namespaceExists(ctx, ns); err != nil || !ok {
				continue
			}
			obj := schemaObject(ns)
			if err := s.requireOwner(ctx, obj, "schema"); err != nil {
				return nil, err
			}
			objs = append(objs, obj)
		}
	}
	if len(objs) == 0 {
		return nil, nil
	}
	return func(ctx context.Context) error {
		for _, obj := range objs {
			if err := s.forgotten(ctx, obj); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func (s *Session) authorizeRename(ctx context.Context, rs *pg.RenameStmt) (func(context.Context) error, error) {
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_SEQUENCE:
		obj, kind, ok, err := s.lookupRelation(ctx, rs.Relation)
		if err != nil || !ok {
			return nil, err
		}
		if err := s.requireOwner(ctx, obj, kind); err != nil {
			return nil, err
		}
		// The new name is made in the schema: PostgreSQL asks CREATE on it.
		if err := s.require(ctx, "CREATE", schemaObject(obj.Schema)); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			to := obj
			to.Name = rs.Newname
			return s.moved(ctx, obj, to)
		}, nil
	case pg.ObjectType_OBJECT_COLUMN:
		return nil, s.requireRelationOwner(ctx, rs.Relation)
	case pg.ObjectType_OBJECT_SCHEMA:
		if ok, err := s.namespaceExists(ctx, rs.Subname); err != nil || !ok {
			return nil, err
		}
		obj := schemaObject(rs.Subname)
		if err := s.requireOwner(ctx, obj, "schema"); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return s.moved(ctx, obj, schemaObject(rs.Newname)) }, nil
	}
	return nil, nil
}

func (s *Session) authorizeComment(ctx context.Context, cs *pg.CommentStmt) error {
	names := func() []string {
		var out []string
		for _, it := range cs.Object.GetList().GetItems() {
			out = append(out, it.GetString_().GetSval())
		}
		return out
	}
	switch cs.Objtype {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_VIEW, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_COLUMN:
		n := names()
		if cs.Objtype == pg.ObjectType_OBJECT_COLUMN && len(n) > 0 {
			n = n[:len(n)-1]
		}
		rv := &pg.RangeVar{}
		switch len(n) {
		case 1:
			rv.Relname = n[0]
		case 2:
			rv.Schemaname, rv.Relname = n[0], n[1]
		default:
			return nil
		}
		if cs.Objtype == pg.ObjectType_OBJECT_COLUMN {
			obj, _, ok, err := s.lookupRelation(ctx, rv)
			if err != nil || !ok {
				return err
			}
			return s.requireOwner(ctx, obj, "relation") // PostgreSQL's word for a column's relation
		}
		return s.requireRelationOwner(ctx, rv)
	case pg.ObjectType_OBJECT_SCHEMA:
		ns := cs.Object.GetString_().GetSval()
		if ok, err := s.namespaceExists(ctx, ns); err != nil || !ok {
			return err
		}
		return s.requireOwner(ctx, schemaObject(ns), "schema")
	}
	return nil
}

// alterOwnerStmt is ALTER SCHEMA … OWNER TO (relations come as ALTER
// TABLE … OWNER TO, alterTableOwner).
func (s *Session) alterOwnerStmt(ctx context.Context, as *pg.AlterOwnerStmt) (*Cursor, error) {
	if as.ObjectType != pg.ObjectType_OBJECT_SCHEMA {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s … OWNER TO is not supported", parseObjectWord(as.ObjectType))
	}
	ns := as.Object.GetString_().GetSval()
	if ok, err := s.namespaceExists(ctx, ns); err != nil {
		return nil, err
	} else if !ok {
		return nil, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", ns)
	}
	if err := s.changeOwner(ctx, schemaObject(ns), "schema", as.Newowner); err != nil {
		return nil, err
	}
	return &Cursor{tag: "ALTER SCHEMA", sess: s}, nil
}

// ownerOnlyAlter reports whether an ALTER TABLE only changes the owner.
func ownerOnlyAlter(at *pg.AlterTableStmt) bool {
	for _, c := range at.Cmds {
		if c.GetAlterTableCmd().GetSubtype() != pg.AlterTableType_AT_ChangeOwner {
			return false
		}
	}
	return len(at.Cmds) > 0
}

// alterTableOwner is ALTER TABLE|VIEW|SEQUENCE … OWNER TO role.
func (s *Session) alterTableOwner(ctx context.Context, at *pg.AlterTableStmt) (*Cursor, error) {
	obj, kind, ok, err := s.lookupRelation(ctx, at.Relation)
	if err != nil {
		return nil, err
	}
	if !ok {
		if at.MissingOk {
			s.notice("relation %q does not exist, skipping", at.Relation.Relname)
			return &Cursor{tag: "ALTER TABLE", sess: s}, nil
		}
		name := at.Relation.Relname
		if at.Relation.Schemaname != "" {
			name = at.Relation.Schemaname + "." + name
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	for _, c := range at.Cmds {
		if err := s.changeOwner(ctx, obj, kind, c.GetAlterTableCmd().GetNewowner()); err != nil {
			return nil, err
		}
	}
	tag := "ALTER TABLE"
	switch at.Objtype {
	case pg.ObjectType_OBJECT_VIEW:
		tag = "ALTER VIEW"
	case pg.ObjectType_OBJECT_SEQUENCE:
		tag = "ALTER SEQUENCE"
	}
	return &Cursor{tag: tag, sess: s}, nil
}
