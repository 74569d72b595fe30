package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// vacuum runs VACUUM [table, …]: compaction, manifest merging, retention
// drops, snapshot expiry and orphan removal on the named tables now, or
// on every table of every schema when none is named. Its options (FULL,
// VERBOSE, …) change nothing, since every VACUUM does all of it, but
// ANALYZE, which also gathers statistics; ANALYZE alone only gathers
// them (analyze).
func (s *Session) vacuum(ctx context.Context, st *Statement, vs *pg.VacuumStmt) (*Cursor, error) {
	tag := "VACUUM"
	if !vs.IsVacuumcmd {
		tag = "ANALYZE"
	} else if err := s.refuseInBlock(st, "VACUUM"); err != nil {
		return nil, err
	}
	var keys []link.Key
	for _, n := range vs.Rels {
		rv := n.GetVacuumRelation().GetRelation()
		if rv == nil {
			continue
		}
		key, ok, err := s.vacuumTarget(ctx, rv.Schemaname, rv.Relname, tag)
		if err != nil {
			return nil, err
		}
		if ok {
			keys = append(keys, key)
		}
	}
	if len(vs.Rels) == 0 {
		all, err := s.allTables(ctx)
		if err != nil {
			return nil, err
		}
		verb := strings.ToLower(tag)
		for _, k := range all {
			if s.mayVacuum(ctx, k, verb) {
				keys = append(keys, k)
			}
		}
	}
	if tag == "ANALYZE" {
		return s.analyze(ctx, keys, len(vs.Rels) == 0)
	}
	pinned := false
	for _, k := range keys {
		rep, err := s.eng.upkeep.Vacuum(ctx, k.NS, k.Name)
		pinned = pinned || rep.LogPinned
		if err == nil && rep.DeletesLeft {
			s.warning("01000", fmt.Sprintf("rows deleted from %q remain in its files: deletes kept landing in them, or an open transaction holds its row lock; VACUUM it again once it ends", k.Name))
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, pgerr.Canceled(ctx)
			}
			if len(vs.Rels) == 0 && (errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace)) {
				continue // dropped since it was listed
			}
			if errors.Is(err, link.ErrExternal) {
				continue // became external since it was listed
			}
			if pe := pgerr.From(err); len(vs.Rels) == 0 && pe.Code == "55006" {
				// As PostgreSQL skips the tables a user may not vacuum.
				s.warning("01000", fmt.Sprintf("skipping %q --- %s", k.Name, pe.Message))
				continue
			}
			return nil, fmt.Errorf("vacuum %s.%s: %w", k.NS, k.Name, err)
		}
	}
	if analyzeOption(vs) {
		if _, err := s.analyze(ctx, keys, len(vs.Rels) == 0); err != nil {
			return nil, err
		}
	}
	if pinned {
		// Erasure is not complete until the log lets go of them
		// (docs/upkeep.md, Erasure).
		s.warning("01000", "write log segments still needed by open transactions were kept; VACUUM again once they end to remove them")
	}
	return &Cursor{tag: tag, sess: s}, nil
}

// vacuumTarget resolves a table VACUUM names through the search path. A
// view or sequence is skipped with PostgreSQL's warning.
func (s *Session) vacuumTarget(ctx context.Context, schema, name, tag string) (link.Key, bool, error) {
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, schema, name)
	if err != nil {
		return link.Key{}, false, err
	}
	verb := "vacuum"
	if tag == "ANALYZE" {
		verb = "analyze"
	}
	if ti.Table == nil || ti.ViewSQL != "" || ti.Sequence {
		s.warning("01000", fmt.Sprintf("skipping %q --- cannot %s non-tables or special system tables", ti.Name, verb))
		return link.Key{}, false, nil
	}
	if ti.External {
		// Skipped with a warning, as PostgreSQL skips what it may not
		// vacuum, rather than failed: VACUUM names tables to tidy, and
		// an external table's files are its writers' to compact and
		// expire (Loam's rewrite would race their commits). A failure
		// would also abort a VACUUM naming several tables.
		s.warning("01000", fmt.Sprintf("skipping %q --- cannot %s external tables: the outside engines that write them maintain them", ti.Name, verb))
		return link.Key{}, false, nil
	}
	key := link.Key{NS: ti.Namespace, Name: ti.Name}
	return key, s.mayVacuum(ctx, key, verb), nil
}

// mayVacuum reports whether the current role owns the table (or is a
// superuser, as the database's owner is), else skips it with
// PostgreSQL's warning rather than failing the VACUUM.
func (s *Session) mayVacuum(ctx context.Context, key link.Key, verb string) bool {
	if ok, err := s.owns(ctx, tableObject(key.NS, key.Name)); err == nil && ok {
		return true
	}
	s.warning("01000", fmt.Sprintf("skipping %q --- only table or database owner can %s it", key.Name, verb))
	return false
}

// allTables lists every table of every schema the session sees.
func (s *Session) allTables(ctx context.Context) ([]link.Key, error) {
	nss, err := s.eng.meta.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	var keys []link.Key
	for _, ns := range nss {
		if s.schemaHidden(ns) {
			continue
		}
		names, err := s.eng.store.ListTables(ctx, ns)
		if err != nil {
			return nil, fmt.Errorf("list tables of %s: %w", ns, err)
		}
		for _, n := range names {
			k := link.Key{NS: ns, Name: n}
			if isAside(n) || s.hidden(k) {
				continue
			}
			// A VACUUM of everything passes over external tables without
			// a word, as PostgreSQL's passes over foreign tables.
			if ext, err := s.eng.link.External(ctx, ns, n); err == nil && ext {
				continue
			}
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// analyze gathers the planner's statistics of tables (ANALYZE): each
// column's distinct values sketched over all rows, kept in the table's
// Puffin statistics file (storage/link/analyze.go). With no table named,
// a table dropped meanwhile is skipped.
func (s *Session) analyze(ctx context.Context, keys []link.Key, all bool) (*Cursor, error) {
	for _, k := range keys {
		err := s.eng.link.Analyze(ctx, k.NS, k.Name)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return nil, pgerr.Canceled(ctx)
		}
		if all && (errors.Is(err, icetable.ErrNoSuchTable) || errors.Is(err, icetable.ErrNoSuchNamespace)) {
			continue
		}
		if errors.Is(err, link.ErrExternal) {
			continue // became external since it was listed
		}
		if pe := pgerr.From(err); all && pe.Code == "55006" {
			s.warning("01000", fmt.Sprintf("skipping %q --- %s", k.Name, pe.Message))
			continue
		}
		return nil, fmt.Errorf("analyze %s.%s: %w", k.NS, k.Name, err)
	}
	return &Cursor{tag: "ANALYZE", sess: s}, nil
}

// analyzeOption reports whether VACUUM's options include ANALYZE.
func analyzeOption(vs *pg.VacuumStmt) bool {
	for _, o := range vs.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == "analyze" {
			switch {
			case d.Arg == nil:
				return true
			case d.Arg.GetInteger() != nil:
				return d.Arg.GetInteger().Ival != 0
			case d.Arg.GetBoolean() != nil:
				return d.Arg.GetBoolean().Boolval
			}
			switch strings.ToLower(d.Arg.GetString_().GetSval()) {
			case "false", "off", "no", "0":
				return false
			}
			return true
		}
	}
	return false
}
