package link

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
)

// One writer per table: a table is written either by Loam's link or by
// outside engines that commit through the Iceberg REST catalog (or any
// catalog client on the same metastore). An external table is never
// written, linked or maintained here (the link's compare-and-swap would
// race commits it did not plan, and compaction or orphan removal would
// rewrite or delete files an outside writer is still committing); Loam
// only reads it, reloading its metadata pointer at every View so a query
// sees the snapshot the outside engine committed last.

// Settings reads the Loam settings row of a table; meta.Store is one.
type Settings interface {
	TableSettings(ctx context.Context, ns, name string) (meta.TableSettings, error)
}

// ErrExternal is the error of writing or maintaining an external table.
var ErrExternal = errors.New("the table is written by outside engines")

// ExternalError is the 42809 error of a Loam write to the external table
// name: PostgreSQL's code and wording for a relation that cannot be
// written ("cannot insert into foreign table"), with verb the action
// refused ("insert into", "update", "delete from", "copy to", "alter",
// "truncate", "change"). It wraps ErrExternal.
func ExternalError(verb, name string) *pgerr.Error {
	e := pgerr.New(pgerr.WrongObjectType, "cannot %s external table %q", verb, name).
		WithHint("Outside engines write this table through the Iceberg REST catalog; Loam only reads it, and sees their commits at its next query.").
		Caused(ErrExternal)
	e.Detail = fmt.Sprintf("Table %q was created WITH (writer = 'external') or by an outside engine.", name)
	return e
}

// isExternal decides whether the table tbl, loaded as key, is written by
// outside engines: its settings say writer = 'external', or it has no
// settings row and is not one Loam created (tables an outside engine
// created through the catalog). Without a Settings reader every table is
// Loam's.
func (m *Manager) isExternal(ctx context.Context, key Key, tbl *table.Table) (bool, error) {
	if m.settings == nil {
		return false, nil
	}
	ts, err := m.settings.TableSettings(ctx, key.NS, key.Name)
	ext, err := meta.ExternalWriter(ts, err, tbl.Properties())
	if err != nil {
		return false, fmt.Errorf("settings of %s: %w", key, err)
	}
	return ext, nil
}

// External reports whether the table is written by outside engines (see
// isExternal), loading its state if need be.
func (m *Manager) External(ctx context.Context, ns, name string) (bool, error) {
	st, err := m.state(ctx, Key{ns, name})
	if err != nil {
		return false, err
	}
	return st.external.Load(), nil
}

// External reports whether the view's table is written by outside
// engines.
func (v *View) External() bool { return v.st.external.Load() }

// refuseExternal is ExternalError for a write (verb) to st when it is
// external.
func refuseExternal(st *tableState, verb string) error {
	if st.external.Load() {
		return ExternalError(verb, st.name().Name)
	}
	return nil
}

// refreshExternal reloads an external table's current metadata: the
// store's load reads the pointer and reuses the loaded table while it has
// not moved (icetable.NewWithPointers), so an unchanged table costs one
// metastore row. The table's classification is read again too, which
// keeps a table whose settings row appeared after its first load (a
// CREATE racing a query) from staying external.
func (m *Manager) refreshExternal(ctx context.Context, st *tableState) error {
	tbl, err := m.store.Load(ctx, st.name().NS, st.name().Name)
	if err != nil {
		return err
	}
	ext, err := m.isExternal(ctx, st.name(), tbl)
	if err != nil {
		return err
	}
	st.mu.Lock()
	if len(st.tail) == 0 {
		st.tbl, st.pos = tbl, Position{}
		st.external.Store(ext)
	}
	st.mu.Unlock()
	return nil
}

// Reclassify reads the table's writer again, after its settings changed
// (CREATE TABLE … WITH (writer = …) stores them after the table).
func (m *Manager) Reclassify(ctx context.Context, ns, name string) error {
	m.mu.Lock()
	st := m.tables[Key{ns, name}]
	m.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	tbl := st.tbl
	st.mu.Unlock()
	ext, err := m.isExternal(ctx, st.name(), tbl)
	if err != nil {
		return err
	}
	st.external.Store(ext)
	return nil
}

// externalIdle is External for the idle-table sweep, which goes over
// every table of the catalog: a table not loaded here is classified
// without keeping its state.
func (m *Manager) externalIdle(ctx context.Context, key Key) (bool, error) {
	m.mu.Lock()
	st := m.tables[key]
	m.mu.Unlock()
	if st != nil {
		return st.external.Load(), nil
	}
	if m.settings == nil {
		return false, nil
	}
	tbl, err := m.store.Load(ctx, key.NS, key.Name)
	if err != nil {
		return false, err
	}
	return m.isExternal(ctx, key, tbl)
}
