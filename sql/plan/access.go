package plan

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/loamdb/loam/pgerr"
)

// Access is a privilege a statement needs on a relation. The planner
// lists them as it resolves names and the engine checks them through its
// authorizer before each execution, as PostgreSQL's executor checks its
// range table, so a kept plan meets a REVOKE made since it was planned.
type Access struct {
	Schema, Name string
	Sequence     bool
	View         bool   // a view: PostgreSQL's message says "view"
	Privilege    string // SELECT, INSERT, UPDATE, DELETE
	// Pos is where the statement names the relation (1-based, 0 for
	// none): PostgreSQL points a schema's denial there.
	Pos int
	// ViaSchema and ViaView name the view whose expansion read the
	// relation: the view's owner needs the privilege, as in PostgreSQL,
	// not the role running the query.
	ViaSchema, ViaView string
}

// need records that the statement needs priv on ti.
func (p *Planner) need(ti *TableInfo, priv string, loc int32) {
	if p.deps == nil || ti == nil {
		return
	}
	a := Access{Schema: ti.Namespace, Name: ti.Name, Sequence: ti.Sequence, View: ti.ViewSQL != "" && !ti.Sequence, Privilege: priv}
	if v := p.via; v != nil {
		a.ViaSchema, a.ViaView = v.Namespace, v.Name
	} else {
		a.Pos = pos(p.query, loc)
	}
	for _, b := range p.deps.access {
		if b.Schema == a.Schema && b.Name == a.Name && b.Privilege == a.Privilege && b.ViaSchema == a.ViaSchema && b.ViaView == a.ViaView {
			return
		}
	}
	p.deps.access = append(p.deps.access, a)
}

// Access lists the privileges the statement planned so far needs.
func (p *Planner) Access() []Access {
	if p.deps == nil {
		return nil
	}
	return p.deps.access
}

// SchemaUser is implemented by a Catalog that checks, as PostgreSQL's
// lookup of a schema-qualified name does, that the current role may use
// the schema (USAGE): before the relation is looked for, so a schema one
// may not use hides which relations it holds.
type SchemaUser interface {
	UseSchema(ctx context.Context, ns string) error
}

// useSchema checks USAGE on the schema rv names, if it names one, with
// the name's position; not inside a view, whose names were checked as
// its owner's when it was made.
func (p *Planner) useSchema(rv *pg.RangeVar) error {
	if rv == nil || rv.Schemaname == "" || p.via != nil {
		return nil
	}
	su, ok := p.cat.(SchemaUser)
	if !ok {
		return nil
	}
	if err := su.UseSchema(p.ctx, rv.Schemaname); err != nil {
		return pgerr.From(err).WithPosition(pos(p.query, rv.Location))
	}
	return nil
}

// searchable checks that the schema an unqualified name was found in is
// one the current role may use: PostgreSQL's search_path leaves out the
// schemas it may not, so the name is not found there (42P01). Loam
// resolves the name first and then asks; a later schema of the path
// holding the same name is not tried.
func (p *Planner) searchable(rv *pg.RangeVar, ti *TableInfo) error {
	if rv == nil || ti == nil || rv.Schemaname != "" || p.via != nil || ti.Namespace == "" {
		return nil
	}
	su, ok := p.cat.(SchemaUser)
	if !ok {
		return nil
	}
	err := su.UseSchema(p.ctx, ti.Namespace)
	if pgerr.Code(err) == pgerr.InsufficientPrivilege {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(pos(p.query, rv.Location))
	}
	return err
}

// readsColumns reports whether a parse tree refers to any column: an
// UPDATE whose SET reads the target's columns needs SELECT on it.
func readsColumns(m protoreflect.Message) bool {
	if _, ok := m.Interface().(*pg.ColumnRef); ok {
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap() || fd.Message() == nil:
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && !found; i++ {
				found = readsColumns(l.Get(i).Message())
			}
		default:
			found = readsColumns(v.Message())
		}
		return !found
	})
	return found
}

// reads reports whether an expression reads columns: only then does an
// UPDATE or DELETE need SELECT (PostgreSQL asks it of the columns read;
// Loam of the table, and of a column of another table in FROM too).
func reads(n *pg.Node) bool {
	return n != nil && readsColumns(n.ProtoReflect())
}

// listReads is reads of a SET or RETURNING list.
func listReads(list []*pg.Node) bool {
	for _, n := range list {
		if reads(n) {
			return true
		}
	}
	return false
}
