package pgcatalog

import (
	"context"
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// regMaps map between OIDs and the names regclass and regtype print.
type regMaps struct {
	relName, typName, nsName map[int64]string
	relOID, typOID, nsOID    map[string]int64
}

// regMaps are the session's maps, made on first use.
func (s *Session) regMaps(ctx context.Context) (*regMaps, error) {
	if s.maps != nil {
		return s.maps, nil
	}
	m := &regMaps{relName: map[int64]string{}, typName: map[int64]string{}, relOID: map[string]int64{}, typOID: map[string]int64{},
		nsName: map[int64]string{}, nsOID: map[string]int64{}}
	if s.src != nil {
		nss, err := s.allSchemas(ctx)
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			oid := int64(ObjectOID(ns, ""))
			m.nsName[oid], m.nsOID[ns] = ns, oid
		}
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		// add registers a relation's (or type's) OID and name: regclass
		// prints the bare name when the search path finds it.
		add := func(names map[int64]string, oids map[string]int64, ns, name string, oid int64) {
			shown := ns + "." + name
			if s.isVisible(ns) {
				shown = name
				if _, taken := oids[name]; !taken {
					oids[name] = oid
				}
			}
			names[oid] = shown
			oids[ns+"."+name] = oid
		}
		for _, r := range rels {
			add(m.relName, m.relOID, r.ns, r.name, int64(ObjectOID(r.ns, r.name)))
			for _, k := range r.keys {
				add(m.relName, m.relOID, r.ns, k.name, int64(r.keyOID(k)))
			}
		}
		// Row types, after the built-in types, which win on a name.
		defer func() {
			for _, r := range rels {
				row, _ := r.rowTypeOIDs()
				add(m.typName, m.typOID, r.ns, r.name, int64(row))
			}
		}()
	}
	for _, pt := range pgTypes {
		for _, t := range []types.T{pt.t, types.ArrayOf(pt.t.Kind)} {
			oid := int64(t.OID())
			shown := t.String()
			if t.Kind == types.QChar {
				shown = `"char"`
			}
			m.typName[oid] = shown
			m.typOID[shown] = oid
		}
		m.typOID[pt.name] = int64(pt.t.OID())
		m.typOID["_"+pt.name] = int64(types.ArrayOf(pt.t.Kind).OID())
	}
	s.maps = m
	return m, nil
}

// RegCast is the body of a cast to regclass, regtype, regnamespace or
// regrole from
// a string or an OID, or from one of them to an OID or integer: a lookup
// in the session's maps of OIDs and names. nil for other casts (and for
// one reg type to another, which changes nothing).
func (s *Session) RegCast(ctx context.Context, from, to types.T) (expr.RowFunc, error) {
	toReg, fromReg := to.IsReg(), from.IsReg()
	if !toReg && !(fromReg && (to.Kind == types.OID || to.IsInteger())) || toReg && fromReg {
		return nil, nil
	}
	m, err := s.regMaps(ctx)
	if err != nil {
		return nil, err
	}
	names, oids := m.relName, m.relOID
	if to.Kind == types.Regtype || from.Kind == types.Regtype {
		names, oids = m.typName, m.typOID
	}
	if to.Kind == types.Regnamespace || from.Kind == types.Regnamespace {
		names, oids = m.nsName, m.nsOID
	}
	if to.Kind == types.Regrole || from.Kind == types.Regrole {
		if names, oids, err = s.roleMaps(ctx); err != nil {
			return nil, err
		}
	}
	switch {
	case toReg && (from.IsString() || from.Kind == types.Unknown):
		return func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			name := a[0].S
			if name == "-" {
				return types.Datum{T: to, S: "-"}, nil // InvalidOid
			}
			if strings.HasPrefix(name, `"`) {
				name = strings.ReplaceAll(strings.Trim(name, `"`), `""`, `"`)
			} else {
				name = strings.ToLower(name)
			}
			if to.Kind != types.Regnamespace && to.Kind != types.Regrole {
				name = strings.TrimPrefix(name, "pg_catalog.")
			}
			oid, ok := oids[name]
			if !ok && name != "" && strings.Trim(name, "0123456789") == "" {
				// A number is an OID, as psql writes '16384'::regclass.
				n, err := strconv.ParseUint(name, 10, 32)
				if err != nil {
					return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type oid", name)
				}
				if s, ok := names[int64(n)]; ok {
					return types.Datum{T: to, S: s}, nil
				}
				return types.Datum{T: to, S: name}, nil
			}
			if !ok {
				if to.Kind == types.Regnamespace {
					return types.Datum{}, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", a[0].S)
				}
				if to.Kind == types.Regrole {
					return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", a[0].S)
				}
				if to.Kind == types.Regtype {
					return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", a[0].S)
				}
				return types.Datum{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
			}
			return types.Datum{T: to, S: names[oid]}, nil
		}, nil
	case toReg && (from.Kind == types.OID || from.IsInteger()):
		return func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].I == 0 {
				return types.Datum{T: to, S: "-"}, nil // InvalidOid prints as -
			}
			if name, ok := names[a[0].I]; ok {
				return types.Datum{T: to, S: name}, nil
			}
			// An OID naming nothing prints as the number, as in PostgreSQL.
			return types.Datum{T: to, S: strconv.FormatInt(a[0].I, 10)}, nil
		}, nil
	case fromReg:
		return func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			oid, ok := oids[a[0].S]
			if !ok {
				oid, _ = strconv.ParseInt(a[0].S, 10, 64)
			}
			return expr.CastDatum(types.Datum{T: types.TOID, I: oid}, to, nil)
		}, nil
	}
	return nil, nil
}
