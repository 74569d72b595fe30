package pgcatalog

import (
	"context"
	"slices"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// privilegeRelations are information_schema's views of roles and
// privileges, as PostgreSQL 15 defines them: each shows what the current
// role may see.
func privilegeRelations() []*Relation {
	grants := `grantor:sql_identifier grantee:sql_identifier table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier privilege_type:character_data is_grantable:yes_or_no with_hierarchy:yes_or_no`
	columnGrants := `grantor:sql_identifier grantee:sql_identifier table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier column_name:sql_identifier privilege_type:character_data is_grantable:yes_or_no`
	usageGrants := `grantor:sql_identifier grantee:sql_identifier object_catalog:sql_identifier object_schema:sql_identifier object_name:sql_identifier object_type:character_data privilege_type:character_data is_grantable:yes_or_no`
	return []*Relation{
		defTable("information_schema", "table_privileges", grants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.tableGrantRows(ctx, rel, true)
			}),
		defTable("information_schema", "role_table_grants", grants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.tableGrantRows(ctx, rel, false)
			}),
		defTable("information_schema", "column_privileges", columnGrants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.grantRows(ctx, rel, true, true)
			}),
		defTable("information_schema", "role_column_grants", columnGrants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.grantRows(ctx, rel, false, true)
			}),
		defTable("information_schema", "role_usage_grants", usageGrants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.usageRows(ctx, rel, false)
			}),
		defTable("information_schema", "administrable_role_authorizations", `grantee:sql_identifier role_name:sql_identifier is_grantable:yes_or_no`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.roleGrantRows(ctx, rel, true)
			}),
		defTable("information_schema", "usage_privileges", usageGrants,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.usageRows(ctx, rel, true)
			}),
		defTable("information_schema", "enabled_roles", `role_name:sql_identifier`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rs, err := s.roleSet(ctx)
				if err != nil {
					return nil, err
				}
				cur := s.src.CurrentRole()
				var out [][]types.Datum
				for _, r := range rs.roles {
					if rs.hasRole(cur, r.Name, true) {
						out = append(out, rel.row(map[string]types.Datum{"role_name": dName(r.Name)}))
					}
				}
				return out, nil
			}),
		defTable("information_schema", "applicable_roles", `grantee:sql_identifier role_name:sql_identifier is_grantable:yes_or_no`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.roleGrantRows(ctx, rel, false)
			}),
	}
}

// tableGrantRows are table_privileges' rows (all, with PUBLIC's, that
// the current role grants or is granted), or role_table_grants' (without
// PUBLIC's): each privilege of each aclitem of every table and view, the
// owner's too. A privilege is grantable with its grant option or to the
// owner.
func (s *Session) tableGrantRows(ctx context.Context, rel *Relation, public bool) ([][]types.Datum, error) {
	return s.grantRows(ctx, rel, public, false)
}

// grantRows are table_privileges' (columns false) or column_privileges'
// rows: each privilege of each aclitem of every table and view, the
// owner's too; a column has its table's SELECT, INSERT, UPDATE and
// REFERENCES (Loam grants no column privileges). Only rows the current
// role grants or is granted are listed, and PUBLIC's when public.
func (s *Session) grantRows(ctx context.Context, rel *Relation, public, columns bool) ([][]types.Datum, error) {
	rels, err := s.relations(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.privData(ctx)
	if err != nil {
		return nil, err
	}
	enabled := d.rs.closure(d.current, true)
	super := d.rs.superuser(d.current)
	var out [][]types.Datum
	for _, r := range rels {
		if r.kind == "S" {
			continue
		}
		owner := s.relOwner(d, r)
		for _, it := range s.relItems(d, r) {
			grantee := it.grantee
			if grantee == "" {
				grantee = "PUBLIC"
			}
			visible := super || enabled[it.grantor] || it.grantee != "" && enabled[it.grantee] || public && it.grantee == ""
			if !visible {
				continue
			}
			for i, p := range aclPrivileges {
				if it.privs&(1<<i) == 0 || columns && !slices.Contains(anyColumnPrivilege, p.name) {
					continue
				}
				grantable := it.opts&(1<<i) != 0 || it.grantee != "" && d.rs.closure(it.grantee, true)[owner]
				row := map[string]types.Datum{"grantor": dName(it.grantor), "grantee": dName(grantee),
					"table_catalog": dName(s.src.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name),
					"privilege_type": dText(p.name), "is_grantable": dText(yesNo(grantable)), "with_hierarchy": dText(yesNo(p.name == "SELECT"))}
				if !columns {
					out = append(out, rel.row(row))
					continue
				}
				for _, c := range r.cols {
					row["column_name"] = dName(c.name)
					out = append(out, rel.row(row))
				}
			}
		}
	}
	return out, nil
}

// roleGrantRows are applicable_roles' rows, the memberships of roles the
// current role has the privileges of (the database owner's in
// pg_database_owner too), or administrable_role_authorizations', those
// of them WITH ADMIN OPTION.
func (s *Session) roleGrantRows(ctx context.Context, rel *Relation, adminOnly bool) ([][]types.Datum, error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, err
	}
	cur := s.src.CurrentRole()
	var out [][]types.Datum
	add := func(member, role string, admin bool) {
		if rs.hasRole(cur, member, true) && (admin || !adminOnly) {
			out = append(out, rel.row(map[string]types.Datum{"grantee": dName(member), "role_name": dName(role),
				"is_grantable": dText(yesNo(admin))}))
		}
	}
	for _, m := range predefinedMembers {
		add(rs.roleName(int64(m[1])), rs.roleName(int64(m[0])), false)
	}
	for _, m := range rs.members {
		add(m.Member, m.Role, m.Admin)
	}
	add(meta.BootstrapRole, databaseOwnerRole, false) // the database's owner
	return out, nil
}

// usageRows are usage_privileges': PUBLIC's USAGE of the collations (when
// public), then USAGE of the sequences, from their aclitems, that the
// current role grants or is granted; role_usage_grants' without PUBLIC's.
func (s *Session) usageRows(ctx context.Context, rel *Relation, public bool) ([][]types.Datum, error) {
	rels, err := s.relations(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.privData(ctx)
	if err != nil {
		return nil, err
	}
	enabled := d.rs.closure(d.current, true)
	super := d.rs.superuser(d.current)
	var out [][]types.Datum
	for _, c := range []string{"default", "C", "POSIX"} {
		if !public {
			break
		}
		out = append(out, rel.row(map[string]types.Datum{"grantor": dName(meta.BootstrapRole), "grantee": dName("PUBLIC"),
			"object_catalog": dName(s.src.Database()), "object_schema": dName("pg_catalog"), "object_name": dName(c),
			"object_type": dText("COLLATION"), "privilege_type": dText("USAGE"), "is_grantable": dText("NO")}))
	}
	usage := privBit("USAGE")
	for _, r := range rels {
		if r.kind != "S" {
			continue
		}
		owner := s.relOwner(d, r)
		for _, it := range d.items(relObject(r)) {
			if it.privs&usage == 0 || !(super || enabled[it.grantor] || public && it.grantee == "" || it.grantee != "" && enabled[it.grantee]) {
				continue
			}
			grantee := it.grantee
			if grantee == "" {
				grantee = "PUBLIC"
			}
			grantable := it.opts&usage != 0 || it.grantee != "" && d.rs.closure(it.grantee, true)[owner]
			out = append(out, rel.row(map[string]types.Datum{"grantor": dName(it.grantor), "grantee": dName(grantee),
				"object_catalog": dName(s.src.Database()), "object_schema": dName(r.ns), "object_name": dName(r.name),
				"object_type": dText("SEQUENCE"), "privilege_type": dText("USAGE"), "is_grantable": dText(yesNo(grantable))}))
		}
	}
	return out, nil
}

// auditTable is pg_catalog.loam_audit, the audit trail (meta.AuditEvent),
// which superusers alone may read: found unqualified, as pg_catalog is
// searched first.
func auditTable() *Relation {
	audit := defTable("pg_catalog", "loam_audit", `at:timestamptz role:name address:text kind:text statement:text ok:boolean detail:text`, auditRows)
	audit.superuserOnly = true
	return audit
}

// auditRows are loam_audit's: the audit trail, oldest first.
func auditRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	events, err := s.src.Audit(ctx)
	if err != nil {
		return nil, err
	}
	out := make([][]types.Datum, 0, len(events))
	for _, e := range events {
		out = append(out, rel.row(map[string]types.Datum{"at": {T: types.TTimestampTZ, I: e.Time.UnixMicro()},
			"role": dName(e.Role), "address": dText(e.Address), "kind": dText(e.Kind), "statement": dText(e.Statement),
			"ok": dBool(e.OK), "detail": dText(e.Detail)}))
	}
	return out, nil
}
