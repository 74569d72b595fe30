package plan

// Access is a privilege a statement needs on a relation. The planner
// lists them as it resolves names and the engine checks them through its
// authorizer before each execution, as PostgreSQL's executor checks its
// range table, so a kept plan meets a REVOKE made since it was planned.
type Access struct {
	Schema, Name string
	Sequence     bool
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
	a := Access{Schema: ti.Namespace, Name: ti.Name, Sequence: ti.Sequence, Privilege: priv}
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
