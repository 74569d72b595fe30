package meta

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Privileges (loam_privileges), owners (loam_owners) and default
// privileges (loam_default_privileges). An object is named by three
// columns, kind, schema and name, so no name needs quoting.

const grantColumns = "grantee, privilege, object_kind, object_schema, object_name, grantor, grant_option"

// Grant records a privilege; ErrNotFound when the grantee is missing.
func (s *sqlStore) Grant(ctx context.Context, g Grant) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		if g.Grantee != PublicRole {
			if err := s.roleExists(ctx, tx, g.Grantee); err != nil {
				return err
			}
		}
		o := g.Object
		_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO loam_privileges (`+grantColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (object_kind, object_schema, object_name, grantee, privilege)
			DO UPDATE SET grant_option = loam_privileges.grant_option OR excluded.grant_option`),
			g.Grantee, g.Privilege, o.Kind, o.Schema, o.Name, g.Grantor, g.GrantOption)
		return err
	})
	if err != nil {
		return fmt.Errorf("meta: grant %s on %s to %q: %w", g.Privilege, g.Object, g.Grantee, err)
	}
	return nil
}

// Revoke removes a privilege, or only its grant option when g.GrantOption
// is set; revoking what was never granted is no error.
func (s *sqlStore) Revoke(ctx context.Context, g Grant) error {
	o := g.Object
	q := "DELETE FROM loam_privileges"
	if g.GrantOption {
		q = "UPDATE loam_privileges SET grant_option = FALSE"
	}
	q += " WHERE grantee = ? AND privilege = ? AND object_kind = ? AND object_schema = ? AND object_name = ?"
	if err := s.authzExec(ctx, q, g.Grantee, g.Privilege, o.Kind, o.Schema, o.Name); err != nil {
		return fmt.Errorf("meta: revoke %s on %s from %q: %w", g.Privilege, g.Object, g.Grantee, err)
	}
	return nil
}

// Grants lists the privileges on obj, or on every object when obj is nil.
func (s *sqlStore) Grants(ctx context.Context, obj *Object) ([]Grant, error) {
	q := "SELECT " + grantColumns + " FROM loam_privileges"
	var args []any
	if obj != nil {
		q += " WHERE object_kind = ? AND object_schema = ? AND object_name = ?"
		args = []any{obj.Kind, obj.Schema, obj.Name}
	}
	q += " ORDER BY object_kind, object_schema, object_name, grantee, privilege"
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("meta: grants: %w", err)
	}
	defer rows.Close()
	out := []Grant{}
	for rows.Next() {
		var g Grant
		if err := rows.Scan(&g.Grantee, &g.Privilege, &g.Object.Kind, &g.Object.Schema, &g.Object.Name, &g.Grantor, &g.GrantOption); err != nil {
			return nil, fmt.Errorf("meta: grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: grants: %w", err)
	}
	return out, nil
}

// SetOwner records obj's owner, replacing any.
func (s *sqlStore) SetOwner(ctx context.Context, obj Object, owner string) error {
	if err := s.authzExec(ctx, `INSERT INTO loam_owners (object_kind, object_schema, object_name, owner) VALUES (?, ?, ?, ?)
		ON CONFLICT (object_kind, object_schema, object_name) DO UPDATE SET owner = excluded.owner`,
		obj.Kind, obj.Schema, obj.Name, owner); err != nil {
		return fmt.Errorf("meta: set owner of %s: %w", obj, err)
	}
	return nil
}

// Owner is obj's recorded owner; ErrNotFound when none was recorded.
func (s *sqlStore) Owner(ctx context.Context, obj Object) (string, error) {
	var owner string
	err := s.queryRow(ctx, "SELECT owner FROM loam_owners WHERE object_kind = ? AND object_schema = ? AND object_name = ?",
		obj.Kind, obj.Schema, obj.Name).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("meta: owner of %s: %w", obj, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("meta: owner of %s: %w", obj, err)
	}
	return owner, nil
}

// Owners maps every object with a recorded owner to it.
func (s *sqlStore) Owners(ctx context.Context) (map[Object]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT object_kind, object_schema, object_name, owner FROM loam_owners")
	if err != nil {
		return nil, fmt.Errorf("meta: owners: %w", err)
	}
	defer rows.Close()
	out := map[Object]string{}
	for rows.Next() {
		var o Object
		var owner string
		if err := rows.Scan(&o.Kind, &o.Schema, &o.Name, &owner); err != nil {
			return nil, fmt.Errorf("meta: owners: %w", err)
		}
		out[o] = owner
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: owners: %w", err)
	}
	return out, nil
}

// ForgetObject drops obj's owner and the privileges on it. A schema's
// default privileges go with it.
func (s *sqlStore) ForgetObject(ctx context.Context, obj Object) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		for _, table := range []string{"loam_privileges", "loam_owners"} {
			if _, err := tx.ExecContext(ctx, s.d.rebind("DELETE FROM "+table+
				" WHERE object_kind = ? AND object_schema = ? AND object_name = ?"), obj.Kind, obj.Schema, obj.Name); err != nil {
				return err
			}
		}
		if obj.Kind != KindSchema {
			return nil
		}
		// What the schema held goes with it (DROP SCHEMA … CASCADE).
		for _, table := range []string{"loam_privileges", "loam_owners"} {
			if _, err := tx.ExecContext(ctx, s.d.rebind("DELETE FROM "+table+" WHERE object_schema = ?"), obj.Name); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, s.d.rebind("DELETE FROM loam_default_privileges WHERE schema_name = ?"), obj.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("meta: forget %s: %w", obj, err)
	}
	return nil
}

// MoveObject moves obj's owner and privileges to a new name. Moving a
// schema moves what is in it too.
func (s *sqlStore) MoveObject(ctx context.Context, from, to Object) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		for _, table := range []string{"loam_privileges", "loam_owners"} {
			if _, err := tx.ExecContext(ctx, s.d.rebind("UPDATE "+table+
				" SET object_kind = ?, object_schema = ?, object_name = ? WHERE object_kind = ? AND object_schema = ? AND object_name = ?"),
				to.Kind, to.Schema, to.Name, from.Kind, from.Schema, from.Name); err != nil {
				return err
			}
			if from.Kind == KindSchema {
				if _, err := tx.ExecContext(ctx, s.d.rebind("UPDATE "+table+" SET object_schema = ? WHERE object_schema = ?"),
					to.Name, from.Name); err != nil {
					return err
				}
			}
		}
		if from.Kind == KindSchema {
			_, err := tx.ExecContext(ctx, s.d.rebind("UPDATE loam_default_privileges SET schema_name = ? WHERE schema_name = ?"), to.Name, from.Name)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("meta: move %s to %s: %w", from, to, err)
	}
	return nil
}

// SetDefaultPrivilege adds (on) or removes a default privilege.
func (s *sqlStore) SetDefaultPrivilege(ctx context.Context, d DefaultPrivilege, on bool) error {
	var err error
	if on {
		err = s.authzExec(ctx, `INSERT INTO loam_default_privileges (owner, schema_name, object_kind, grantee, privilege, grant_option)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (owner, schema_name, object_kind, grantee, privilege)
			DO UPDATE SET grant_option = excluded.grant_option`, d.Owner, d.Schema, d.Kind, d.Grantee, d.Privilege, d.GrantOption)
	} else {
		err = s.authzExec(ctx, `DELETE FROM loam_default_privileges WHERE owner = ? AND schema_name = ? AND object_kind = ?
			AND grantee = ? AND privilege = ?`, d.Owner, d.Schema, d.Kind, d.Grantee, d.Privilege)
	}
	if err != nil {
		return fmt.Errorf("meta: default privilege %s on %ss for %q: %w", d.Privilege, d.Kind, d.Grantee, err)
	}
	return nil
}

// DefaultPrivileges lists every default privilege, sorted.
func (s *sqlStore) DefaultPrivileges(ctx context.Context) ([]DefaultPrivilege, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT owner, schema_name, object_kind, grantee, privilege, grant_option
		FROM loam_default_privileges ORDER BY owner, schema_name, object_kind, grantee, privilege`)
	if err != nil {
		return nil, fmt.Errorf("meta: default privileges: %w", err)
	}
	defer rows.Close()
	out := []DefaultPrivilege{}
	for rows.Next() {
		var d DefaultPrivilege
		if err := rows.Scan(&d.Owner, &d.Schema, &d.Kind, &d.Grantee, &d.Privilege, &d.GrantOption); err != nil {
			return nil, fmt.Errorf("meta: default privileges: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: default privileges: %w", err)
	}
	return out, nil
}
