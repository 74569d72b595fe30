package pgcatalog

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Session is the registry as one planner sees it: its relations and
// functions over a session's Source. It keeps the OID maps regclass and
// regtype read, made once per Session (per statement planned).
type Session struct {
	reg  *Registry
	src  Source
	maps *regMaps
}

// Session binds the registry to a session's Source. A nil src (a
// catalog that is no session's, as in tests) gives empty catalogs and no
// catalog functions, but regtype still knows the built-in types.
func (r *Registry) Session(src Source) *Session { return &Session{reg: r, src: src} }

// Registry is the registry the session reads.
func (s *Session) Registry() *Registry { return s.reg }

// Rows generates a relation's rows, then the system column tableoid for
// a system catalog (see Relation.TableOID).
func (s *Session) Rows(ctx context.Context, rel *Relation) ([][]types.Datum, error) {
	if s.src == nil {
		return nil, nil
	}
	if rel.superuserOnly {
		rs, err := s.roleSet(ctx)
		if err != nil {
			return nil, err
		}
		if !rs.superuser(s.src.CurrentRole()) {
			kind := "table"
			if rel.view {
				kind = "view"
			}
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", kind, rel.Name)
		}
	}
	rows, err := rel.rows(ctx, s, rel)
	if oid, ok := rel.TableOID(); ok {
		for i := range rows {
			rows[i] = append(rows[i], dOID(oid))
		}
	}
	return rows, err
}
