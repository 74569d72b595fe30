package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// DDL takes part in the transaction, as in PostgreSQL: ROLLBACK (of the
// block, to a savepoint, of a failed or implicit transaction, or a lost
// connection) undoes it and COMMIT keeps it.
//
// CREATE, ALTER and COMMENT are stored at once and undone on rollback:
// each records how in Session.undo. DROP waits for COMMIT instead, since
// what it removes could not be brought back: the dropped object is hidden
// from the session at once (its statements get 42P01), other sessions
// see it until COMMIT, and the block's own uncommitted writes to a
// dropped table are discarded then. A dropped table's files go only after
// the metastore dropped it (icetable.Store.Drop).
//
// A CREATE that takes the name of an object the block dropped carries
// that drop out first but keeps it undoable: a table is renamed aside
// (asidePrefix) and renamed back on rollback, its files removed at
// COMMIT; a view's definition is kept to create it again.

// dropKind is what a pending DROP removes.
type dropKind byte

const (
	dropTable dropKind = iota
	dropView
	dropSchema // key.NS, with the tables and views it held at the DROP
)

// pendingDrop is a DROP a transaction made, carried out at COMMIT.
type pendingDrop struct {
	kind dropKind
	key  link.Key
	// written is len(Session.written) at the DROP: the block's writes
	// before it went to the dropped table, those after to a new one.
	written int
	// aside is set once a CREATE took the name: the table was renamed to
	// aside (its files are removed at COMMIT), or the view dropped.
	aside string
	done  bool
	// tables and views are what a dropped schema held at the DROP, which
	// go with it. One another session made since is not dropped with
	// them: the schema then stays, and COMMIT says why.
	tables, views []string
}

// asidePrefix starts the name a dropped table is renamed to while the
// block that dropped it is open; listings skip such names.
const asidePrefix = "loam$dropped$"

// covers says whether the drop removes the table or view key.
func (d *pendingDrop) covers(key link.Key) bool {
	if d.kind == dropSchema {
		return d.key.NS == key.NS
	}
	return d.key == key
}

// hidden says whether the session's open transaction dropped key (or its
// schema), so that its statements no longer see it.
func (s *Session) hidden(key link.Key) bool {
	for _, d := range s.drops {
		if !d.done && d.covers(key) {
			return true
		}
	}
	return false
}

// schemaHidden says whether the open transaction dropped schema ns.
func (s *Session) schemaHidden(ns string) bool {
	for _, d := range s.drops {
		if d.kind == dropSchema && d.key.NS == ns {
			return true
		}
	}
	return false
}

// namespaceExists is whether schema ns exists for this session.
func (s *Session) namespaceExists(ctx context.Context, ns string) (bool, error) {
	if s.schemaHidden(ns) {
		return false, nil
	}
	return s.eng.store.NamespaceExists(ctx, ns)
}

// inTx says whether DDL now is part of a transaction that may still roll
// back: a block, or an implicit transaction (wire.ImplicitTransactions).
func (s *Session) inTx() bool { return s.tx != 'I' || s.implicit }

// dropLater drops a table or view at COMMIT; outside a transaction, now.
func (s *Session) dropLater(ctx context.Context, kind dropKind, key link.Key) error {
	return s.pend(ctx, &pendingDrop{kind: kind, key: key})
}

// dropSchemaLater drops schema ns, with the tables and views it holds, at
// COMMIT; outside a transaction, now.
func (s *Session) dropSchemaLater(ctx context.Context, ns string, tables, views []string) error {
	return s.pend(ctx, &pendingDrop{kind: dropSchema, key: link.Key{NS: ns}, tables: tables, views: views})
}

func (s *Session) pend(ctx context.Context, d *pendingDrop) error {
	d.written = len(s.written)
	if !s.inTx() {
		return s.carryOut(ctx, d)
	}
	s.drops = append(s.drops, d)
	return nil
}

// carryOut does a DROP: at COMMIT, or at once outside a transaction.
func (s *Session) carryOut(ctx context.Context, d *pendingDrop) error {
	k := d.key
	switch {
	case d.done && d.kind == dropTable:
		// Renamed aside when a CREATE took its name: its files go now.
		if err := s.eng.store.Drop(ctx, k.NS, d.aside); err != nil && !errors.Is(err, icetable.ErrNoSuchTable) {
			return fmt.Errorf("drop table %s.%s: %w", k.NS, k.Name, err)
		}
		return nil
	case d.done:
		return nil // a view dropped when a CREATE took its name
	case d.kind == dropTable:
		return s.dropTable(ctx, k.NS, k.Name)
	case d.kind == dropView:
		if err := s.eng.meta.DropView(ctx, k.NS, k.Name); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("drop view %s.%s: %w", k.NS, k.Name, err)
		}
		return nil
	}
	ns := k.NS
	for _, v := range d.views {
		if err := s.eng.meta.DropView(ctx, ns, v); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("drop view %s.%s: %w", ns, v, err)
		}
	}
	for _, t := range d.tables {
		if err := s.dropTable(ctx, ns, t); err != nil {
			return err
		}
	}
	err := s.eng.store.DropNamespace(ctx, ns)
	if errors.Is(err, icetable.ErrNamespaceNotEmpty) {
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop schema %s: objects were created in it after the DROP", ns)
	}
	if err != nil && !errors.Is(err, icetable.ErrNoSuchNamespace) {
		return fmt.Errorf("drop schema %s: %w", ns, err)
	}
	return nil
}

// commitDrops carries out the transaction's DROPs, in order, after its
// writes committed. A failure leaves the rest undone and is reported.
func (s *Session) commitDrops(ctx context.Context) error {
	var first error
	for _, d := range s.drops {
		if err := s.carryOut(ctx, d); err != nil {
			s.eng.log.Warn("commit: a DROP failed", "object", d.key, "err", err)
			if first == nil {
				first = err
			}
		}
	}
	s.drops = nil
	return first
}

// discarded says whether the i-th write of the block went to a table the
// block then dropped; COMMIT discards it.
func (s *Session) discarded(i int) bool {
	key := s.written[i].Key()
	for _, d := range s.drops {
		if d.kind != dropView && i < d.written && d.covers(key) {
			return true
		}
	}
	return false
}

// takeName makes way for a CREATE of key when the open transaction
// dropped what holds that name: the drop is carried out now, undoably.
// A table set aside keeps its directory, so location is where a new
// table of that name goes instead ("" for the default).
func (s *Session) takeName(ctx context.Context, key link.Key) (location string, err error) {
	var d *pendingDrop
	for _, p := range s.drops {
		if !p.done && p.kind != dropSchema && p.key == key {
			d = p
		}
	}
	if d == nil {
		return "", nil
	}
	if d.kind == dropView {
		v, err := s.eng.meta.View(ctx, key.NS, key.Name)
		if errors.Is(err, meta.ErrNotFound) {
			d.done = true // another session dropped it meanwhile
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if err := s.eng.meta.DropView(ctx, key.NS, key.Name); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return "", fmt.Errorf("drop view %s.%s: %w", key.NS, key.Name, err)
		}
		d.done = true
		s.onRollback(func(ctx context.Context) error {
			d.done = false
			defer s.eng.missingViews.forget(key)
			return s.eng.meta.CreateView(ctx, key.NS, key.Name, v)
		})
		return "", nil
	}
	old, err := s.eng.store.Load(ctx, key.NS, key.Name)
	if errors.Is(err, icetable.ErrNoSuchTable) {
		d.done = true // another session dropped it meanwhile
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("drop table %s.%s: %w", key.NS, key.Name, err)
	}
	settings, err := s.eng.meta.TableSettings(ctx, key.NS, key.Name)
	hasSettings := err == nil
	if err != nil && !errors.Is(err, meta.ErrNotFound) {
		return "", err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	suffix := hex.EncodeToString(b[:])
	aside := asidePrefix + suffix + "$" + key.Name
	// The rows only the write log holds go into Iceberg first: the rename
	// leaves the write log's state for the name behind.
	err = s.eng.link.SetAside(ctx, key, func() error { return s.eng.store.Rename(ctx, key.NS, key.Name, aside) })
	if err != nil {
		return "", fmt.Errorf("drop table %s.%s: %w", key.NS, key.Name, err)
	}
	d.done, d.aside = true, aside
	s.onRollback(func(ctx context.Context) error {
		// The new table is gone by now (undone after it was created).
		d.done = false
		s.eng.link.Forget(key)
		if err := s.eng.store.Rename(ctx, key.NS, aside, key.Name); err != nil {
			return fmt.Errorf("restore dropped table %s.%s: %w", key.NS, key.Name, err)
		}
		s.eng.missing.forget(key)
		// The block's writes to the table before the DROP went to the
		// write-log state the rename let go of: they move to its new one.
		for _, t := range s.written {
			if t.Key() != key {
				continue
			}
			if _, err := t.Rebind(ctx); err != nil {
				t.Abort()
				s.eng.log.Warn("rollback: the block's writes to a table brought back are lost", "table", key, "err", err)
			}
		}
		if hasSettings {
			return s.eng.meta.PutTableSettings(ctx, key.NS, key.Name, settings)
		}
		return s.eng.meta.DeleteTableSettings(ctx, key.NS, key.Name)
	})
	return strings.TrimSuffix(old.Location(), "/") + "-" + suffix, nil
}

// refuseSchemaRecreate refuses CREATE SCHEMA of a schema the open block
// dropped: its tables could not be set aside as one table's are.
func (s *Session) refuseSchemaRecreate(ns string) error {
	if s.schemaHidden(ns) {
		return pgerr.New(pgerr.FeatureNotSupported, "schema %q was dropped in this transaction block; COMMIT before creating it again", ns)
	}
	return nil
}

// onRollback records how to undo DDL stored at once (CREATE, ALTER,
// COMMENT), which a rollback of the transaction undoes.
func (s *Session) onRollback(undo func(context.Context) error) {
	if s.inTx() {
		s.undo = append(s.undo, undo)
	}
}

// undoTo undoes the transaction's DDL from the i-th undo on, last first.
func (s *Session) undoTo(i int) {
	for j := len(s.undo) - 1; j >= i; j-- {
		if err := s.undo[j](context.Background()); err != nil {
			s.eng.log.Warn("rollback: undoing DDL failed", "err", err)
		}
	}
	if len(s.undo) > i {
		// Undone grants and owners reach the authorizer too.
		if err := s.eng.authz.Refresh(context.Background()); err != nil {
			s.eng.log.Warn("rollback: refreshing the authorizer failed", "err", err)
		}
	}
	s.undo = s.undo[:i]
}

// isAside says whether a table name is a dropped table set aside.
func isAside(name string) bool { return strings.HasPrefix(name, asidePrefix) }

// reportAside warns of tables a DROP set aside in a block that never
// ended (the server stopped inside it). Whether that block committed is
// not known, so they are kept for an operator: DROP TABLE "<name>"
// removes one.
func (e *Engine) reportAside(ctx context.Context) {
	nss, err := e.meta.ListNamespaces(ctx)
	if err != nil {
		return
	}
	for _, ns := range nss {
		tables, err := e.store.ListTables(ctx, ns)
		if err != nil {
			continue
		}
		for _, t := range tables {
			if isAside(t) {
				e.log.Warn("a table dropped in a transaction block that never ended is kept; DROP it once it is not needed",
					"schema", ns, "table", t)
			}
		}
	}
}
