package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// Time travel reads a table as of one of its Iceberg snapshots, and
// branches and tags name snapshots (docs/time-travel.md):
//
//	SELECT … FROM t FOR TIMESTAMP AS OF expr | FOR VERSION AS OF n | 'ref'
//	SELECT … FROM "t@ref"; INSERT INTO "t@branch" …; COPY "t@branch" FROM STDIN
//	ALTER TABLE t CREATE|DROP BRANCH|TAG … (refs.go)
//
// A snapshot holds only rows the link has committed: rows still in the
// write log are in no snapshot, so time travel never reads the tail.

// duplicateObject is PostgreSQL's 42710, for a branch or tag name taken.
const duplicateObject = "42710"

// TableAsOf pins the table ti resolved to the snapshot at names.
func (c *catalog) TableAsOf(ctx context.Context, ti *plan.TableInfo, at plan.Travel) (*plan.TableInfo, error) {
	t := ti.Table
	var snap *table.Snapshot
	var err error
	snapshotSchema := true
	switch {
	case at.Ref != "":
		r, ok := icetable.Ref(t, at.Ref)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "branch or tag %q of table %q does not exist", at.Ref, ti.Name).WithPosition(at.Pos)
		}
		// Iceberg reads a branch with the table's schema, a tag with its
		// snapshot's.
		snapshotSchema = r.SnapshotRefType == table.TagRef
		snap, err = icetable.SnapshotByID(t, r.SnapshotID)
	case at.Snapshot != nil:
		snap, err = icetable.SnapshotByID(t, *at.Snapshot)
	default:
		snap, err = icetable.SnapshotAsOf(t, at.At)
	}
	if err != nil {
		if errors.Is(err, icetable.ErrNoSnapshot) {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "%s", noSnapshotMessage(ti.Name, at, c.s.loc)).WithPosition(at.Pos)
		}
		return nil, err
	}
	pinned, err := icetable.Pin(t, snap, snapshotSchema)
	if err != nil {
		return nil, err
	}
	out, err := tableInfo(ti.Namespace, ti.Name, pinned)
	if err != nil {
		return nil, err
	}
	out.Ref = ti.Ref
	return out, nil // no Tail: rows not yet linked are in no snapshot
}

func noSnapshotMessage(name string, at plan.Travel, loc *time.Location) string {
	switch {
	case at.Ref != "":
		return fmt.Sprintf("branch or tag %q of table %q names a snapshot that no longer exists", at.Ref, name)
	case at.Snapshot != nil:
		return fmt.Sprintf("table %q has no snapshot %d", name, *at.Snapshot)
	}
	return fmt.Sprintf("table %q has no snapshot at or before %s", name, types.AppendTimestamp(nil, at.At.UnixMicro(), loc))
}

// refName resolves "t@ref", a table's branch or tag read (and, for a
// branch, written) by name. A table really named so wins: this is tried
// only when no relation has the name.
func (c *catalog) refName(ctx context.Context, schema, name string) (*plan.TableInfo, error) {
	i := strings.LastIndexByte(name, '@')
	if i <= 0 || i == len(name)-1 {
		return nil, nil
	}
	base, ref := name[:i], name[i+1:]
	ti, err := c.Table(ctx, schema, base)
	if err != nil {
		if pgerr.From(err).Code == pgerr.UndefinedTable {
			return nil, nil
		}
		return nil, err
	}
	if ti.Table == nil || ti.Ref != "" {
		return nil, nil // a view or sequence, or "t@a@b"
	}
	out, err := c.TableAsOf(ctx, ti, plan.Travel{Ref: ref})
	if err != nil {
		return nil, err
	}
	out.Ref = ref
	return out, nil
}

// retainDays is RETAIN n DAYS as a duration.
func retainDays(n int) time.Duration { return time.Duration(n) * 24 * time.Hour }
