package icetable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Time travel and branches: a table read as of an earlier snapshot, and
// the snapshot references (branches, tags) that name snapshots.

// pinnedSchemaProperty marks a table pinned (Pin) to a snapshot whose
// schema is not the table's current one; it is never committed. Its scans
// keep out of the column cache, which keys columns by file and name: a
// name may stand for another field in an older schema.
const pinnedSchemaProperty = "loam.pinned-schema"

// ErrNoSnapshot is a time-travel target no snapshot answers to.
var ErrNoSnapshot = errors.New("no such snapshot")

// SnapshotAsOf is the snapshot of the main branch that was current at
// time at: the last entry of the table's snapshot log at or before it.
func SnapshotAsOf(t *table.Table, at time.Time) (*table.Snapshot, error) {
	s := t.SnapshotAsOf(at.UnixMilli(), true)
	if s == nil {
		return nil, fmt.Errorf("%w: table %s has no snapshot at or before %s", ErrNoSnapshot, t.Identifier(), at.UTC().Format(time.RFC3339Nano))
	}
	return s, nil
}

// SnapshotByID is the table's snapshot with that ID.
func SnapshotByID(t *table.Table, id int64) (*table.Snapshot, error) {
	s := t.SnapshotByID(id)
	if s == nil {
		return nil, fmt.Errorf("%w: table %s has no snapshot %d", ErrNoSnapshot, t.Identifier(), id)
	}
	return s, nil
}

// Ref is the table's branch or tag of that name; ok is false when there is
// none. The main branch always exists once the table has a snapshot.
func Ref(t *table.Table, name string) (table.SnapshotRef, bool) {
	for n, r := range t.Metadata().Refs() {
		if n == name {
			return r, true
		}
	}
	return table.SnapshotRef{}, false
}

// Pin returns t as of snapshot snap, for reading only: its current
// snapshot is snap, and with snapshotSchema its schema is the one snap was
// written with, as Iceberg reads snapshot IDs, timestamps and tags (a
// branch is read with the table's current schema). Files of any age then
// read right through iceberg-go's own projection by field ID. The pinned
// table has no catalog, so it cannot be committed by mistake.
func Pin(t *table.Table, snap *table.Snapshot, snapshotSchema bool) (*table.Table, error) {
	b, err := table.MetadataBuilderFromBase(t.Metadata(), t.MetadataLocation())
	if err != nil {
		return nil, fmt.Errorf("pin %s to snapshot %d: %w", t.Identifier(), snap.SnapshotID, err)
	}
	if snapshotSchema && snap.SchemaID != nil && *snap.SchemaID != t.Schema().ID {
		if err := b.SetCurrentSchemaID(*snap.SchemaID); err != nil {
			return nil, fmt.Errorf("pin %s to snapshot %d: %w", t.Identifier(), snap.SnapshotID, err)
		}
		if err := b.SetProperties(iceberg.Properties{pinnedSchemaProperty: "true"}); err != nil {
			return nil, fmt.Errorf("pin %s to snapshot %d: %w", t.Identifier(), snap.SnapshotID, err)
		}
	}
	if err := b.SetSnapshotRef(table.MainBranch, snap.SnapshotID, table.BranchRef); err != nil {
		return nil, fmt.Errorf("pin %s to snapshot %d: %w", t.Identifier(), snap.SnapshotID, err)
	}
	md, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("pin %s to snapshot %d: %w", t.Identifier(), snap.SnapshotID, err)
	}
	fs := func(ctx context.Context) (icebergio.IO, error) { return t.FS(ctx) }
	return table.New(t.Identifier(), md, t.MetadataLocation(), fs, nil), nil
}

// pinnedSchema says whether t is pinned to an older schema.
func pinnedSchema(t *table.Table) bool {
	_, ok := t.Properties()[pinnedSchemaProperty]
	return ok
}

// RefOptions are a new reference's retention.
type RefOptions struct {
	// MaxRefAge is how long the reference is kept (RETAIN n DAYS); 0 for
	// the table's default.
	MaxRefAge time.Duration
}

// CreateRef adds a branch or tag pointing at snapshot id. It fails when
// the name is taken.
func CreateRef(name string, typ table.RefType, id int64, opts RefOptions) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		if _, ok := Ref(t, name); ok {
			return nil, nil, fmt.Errorf("%w: %q", ErrRefExists, name)
		}
		if t.SnapshotByID(id) == nil {
			return nil, nil, fmt.Errorf("%w: table %s has no snapshot %d", ErrNoSnapshot, t.Identifier(), id)
		}
		var maxRefAge int64
		if opts.MaxRefAge > 0 {
			maxRefAge = opts.MaxRefAge.Milliseconds()
		}
		return []table.Requirement{table.AssertRefSnapshotID(name, nil)},
			[]table.Update{table.NewSetSnapshotRefUpdate(name, id, typ, maxRefAge, 0, 0)}, nil
	}
}

// DropRef removes a branch or tag; the snapshots it alone kept are left to
// snapshot expiry.
func DropRef(name string) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		r, ok := Ref(t, name)
		if !ok {
			return nil, nil, fmt.Errorf("%w: %q", ErrNoRef, name)
		}
		id := r.SnapshotID
		return []table.Requirement{table.AssertRefSnapshotID(name, &id)},
			[]table.Update{table.NewRemoveSnapshotRefUpdate(name)}, nil
	}
}

// SetRef points an existing branch back at snapshot id, as the rollback of
// a write to the branch does, provided it still points at from.
func SetRef(name string, from, id int64) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		r, ok := Ref(t, name)
		if !ok || r.SnapshotID != from {
			return nil, nil, nil // dropped or moved on since: leave it
		}
		return []table.Requirement{table.AssertRefSnapshotID(name, &from)}, []table.Update{setRef(name, id, r)}, nil
	}
}

// ErrRefExists and ErrNoRef: a branch or tag name taken, or unknown.
var (
	ErrRefExists = errors.New("reference already exists")
	ErrNoRef     = errors.New("no such reference")
)

// AppendBranch is Append onto a branch other than main: one snapshot whose
// parent is the branch's head, moving only the branch. A tag is refused.
func (s *Store) AppendBranch(ctx context.Context, t *table.Table, branch string, rec arrow.RecordBatch, props iceberg.Properties) (*table.Table, error) {
	if branch == table.MainBranch {
		// Main's snapshots carry the write log's position: only the link
		// and link.Manager.Maintain commit them.
		return nil, errors.New("AppendBranch: main is written through the write log")
	}
	r, ok := Ref(t, branch)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoRef, branch)
	}
	if r.SnapshotRefType != table.BranchRef {
		return nil, fmt.Errorf("%w: %q is a tag", ErrTagWrite, branch)
	}
	return s.appendTo(ctx, t, branch, rec, props)
}

// ErrTagWrite is a write to a tag, which always names one snapshot.
var ErrTagWrite = errors.New("tags cannot be written to")

// RestoreRef puts back a reference as it was, as the rollback of its drop
// does; nothing when the name has been taken again since.
func RestoreRef(name string, r table.SnapshotRef) Change {
	return func(t *table.Table) ([]table.Requirement, []table.Update, error) {
		if _, ok := Ref(t, name); ok || t.SnapshotByID(r.SnapshotID) == nil {
			return nil, nil, nil
		}
		return []table.Requirement{table.AssertRefSnapshotID(name, nil)}, []table.Update{setRef(name, r.SnapshotID, r)}, nil
	}
}

// setRef points name at snapshot id with r's type and retention.
func setRef(name string, id int64, r table.SnapshotRef) table.Update {
	var maxRefAge, maxSnapAge int64
	var minKeep int
	if r.MaxRefAgeMs != nil {
		maxRefAge = *r.MaxRefAgeMs
	}
	if r.MaxSnapshotAgeMs != nil {
		maxSnapAge = *r.MaxSnapshotAgeMs
	}
	if r.MinSnapshotsToKeep != nil {
		minKeep = *r.MinSnapshotsToKeep
	}
	return table.NewSetSnapshotRefUpdate(name, id, r.SnapshotRefType, maxRefAge, maxSnapAge, minKeep)
}
