package meta

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Roles live in loam_roles; memberships in loam_role_members. A role's
// name is its key everywhere (privileges, owners, default privileges), so
// a rename rewrites those rows in the same transaction.

const roleColumns = "name, superuser, login, inherit, createrole, createdb, password, valid_until"

type rowScanner interface{ Scan(dest ...any) error }

func scanRole(r rowScanner) (Role, error) {
	var role Role
	var until string
	if err := r.Scan(&role.Name, &role.Superuser, &role.Login, &role.Inherit, &role.CreateRole,
		&role.CreateDB, &role.Password, &until); err != nil {
		return Role{}, err
	}
	if until != "" {
		t, err := time.Parse(time.RFC3339Nano, until)
		if err != nil {
			return Role{}, fmt.Errorf("role %q: valid until %q: %w", role.Name, until, err)
		}
		role.ValidUntil = t
	}
	return role, nil
}

func untilText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// CreateRole adds a role; ErrExists when the name is taken.
func (s *sqlStore) CreateRole(ctx context.Context, r Role) error {
	if r.Name == "" {
		return errors.New("meta: create role: empty name")
	}
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO loam_roles (`+roleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (name) DO NOTHING`), r.Name, r.Superuser, r.Login, r.Inherit, r.CreateRole, r.CreateDB,
			r.Password, untilText(r.ValidUntil))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrExists
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("meta: create role %q: %w", r.Name, err)
	}
	return nil
}

// Role is the role named name; ErrNotFound when there is none.
func (s *sqlStore) Role(ctx context.Context, name string) (Role, error) {
	r, err := scanRole(s.queryRow(ctx, "SELECT "+roleColumns+" FROM loam_roles WHERE name = ?", name))
	if errors.Is(err, sql.ErrNoRows) {
		return Role{}, fmt.Errorf("meta: role %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Role{}, fmt.Errorf("meta: role %q: %w", name, err)
	}
	return r, nil
}

// roleRenames are the columns naming a role, rewritten by a rename.
var roleRenames = []struct{ table, column string }{
	{"loam_role_members", "role"}, {"loam_role_members", "member"}, {"loam_role_members", "grantor"},
	{"loam_privileges", "grantee"}, {"loam_privileges", "grantor"},
	{"loam_owners", "owner"},
	{"loam_default_privileges", "owner"}, {"loam_default_privileges", "grantee"},
}

// AlterRole applies change to the role atomically; a new Name renames it
// everywhere it is named.
func (s *sqlStore) AlterRole(ctx context.Context, name string, change func(Role) (Role, error)) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		old, err := scanRole(tx.QueryRowContext(ctx, s.d.rebind("SELECT "+roleColumns+" FROM loam_roles WHERE name = ?"+s.d.forUpdate), name))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		r, err := change(old)
		if err != nil {
			return err
		}
		if r.Name == "" {
			return errors.New("empty name")
		}
		if r.Name != old.Name {
			var one int
			err := tx.QueryRowContext(ctx, s.d.rebind("SELECT 1 FROM loam_roles WHERE name = ?"), r.Name).Scan(&one)
			if err == nil {
				return fmt.Errorf("role %q: %w", r.Name, ErrExists)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			for _, rc := range roleRenames {
				q := fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ?", rc.table, rc.column, rc.column)
				if _, err := tx.ExecContext(ctx, s.d.rebind(q), r.Name, old.Name); err != nil {
					return err
				}
			}
		}
		_, err = tx.ExecContext(ctx, s.d.rebind(`UPDATE loam_roles SET name = ?, superuser = ?, login = ?, inherit = ?,
			createrole = ?, createdb = ?, password = ?, valid_until = ? WHERE name = ?`),
			r.Name, r.Superuser, r.Login, r.Inherit, r.CreateRole, r.CreateDB, r.Password, untilText(r.ValidUntil), old.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("meta: alter role %q: %w", name, err)
	}
	return nil
}

// DropRole removes a role, its memberships and the privileges granted to
// it; ErrNotFound when there is none.
func (s *sqlStore) DropRole(ctx context.Context, name string) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			"DELETE FROM loam_privileges WHERE grantee = ?",
			"DELETE FROM loam_role_members WHERE role = ?",
			"DELETE FROM loam_role_members WHERE member = ?",
			"DELETE FROM loam_default_privileges WHERE owner = ?",
			"DELETE FROM loam_default_privileges WHERE grantee = ?",
		} {
			if _, err := tx.ExecContext(ctx, s.d.rebind(q), name); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, s.d.rebind("DELETE FROM loam_roles WHERE name = ?"), name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("meta: drop role %q: %w", name, err)
	}
	return nil
}

// ListRoles lists every role, sorted by name.
func (s *sqlStore) ListRoles(ctx context.Context) ([]Role, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+roleColumns+" FROM loam_roles ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("meta: list roles: %w", err)
	}
	defer rows.Close()
	out := []Role{}
	for rows.Next() {
		r, err := scanRole(rows)
		if err != nil {
			return nil, fmt.Errorf("meta: list roles: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: list roles: %w", err)
	}
	return out, nil
}

type queryRower interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func (s *sqlStore) roleExists(ctx context.Context, q queryRower, role string) error {
	var one int
	err := q.QueryRowContext(ctx, s.d.rebind("SELECT 1 FROM loam_roles WHERE name = ?"), role).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("role %q: %w", role, ErrNotFound)
	}
	return err
}

// GrantRole makes m.Member a member of m.Role.
func (s *sqlStore) GrantRole(ctx context.Context, m Membership) error {
	err := s.authzTx(ctx, func(tx *sql.Tx) error {
		for _, r := range []string{m.Role, m.Member} {
			if err := s.roleExists(ctx, tx, r); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO loam_role_members (role, member, grantor, admin_option)
			VALUES (?, ?, ?, ?) ON CONFLICT (role, member) DO UPDATE SET admin_option = excluded.admin_option`),
			m.Role, m.Member, m.Grantor, m.Admin)
		return err
	})
	if err != nil {
		return fmt.Errorf("meta: grant role %q to %q: %w", m.Role, m.Member, err)
	}
	return nil
}

// RevokeRole ends a membership; one that is not there is no error.
func (s *sqlStore) RevokeRole(ctx context.Context, role, member string) error {
	if err := s.authzExec(ctx, "DELETE FROM loam_role_members WHERE role = ? AND member = ?", role, member); err != nil {
		return fmt.Errorf("meta: revoke role %q from %q: %w", role, member, err)
	}
	return nil
}

// Memberships lists every membership, sorted by role, then member.
func (s *sqlStore) Memberships(ctx context.Context) ([]Membership, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT role, member, grantor, admin_option FROM loam_role_members ORDER BY role, member")
	if err != nil {
		return nil, fmt.Errorf("meta: memberships: %w", err)
	}
	defer rows.Close()
	out := []Membership{}
	for rows.Next() {
		var m Membership
		if err := rows.Scan(&m.Role, &m.Member, &m.Grantor, &m.Admin); err != nil {
			return nil, fmt.Errorf("meta: memberships: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: memberships: %w", err)
	}
	return out, nil
}
