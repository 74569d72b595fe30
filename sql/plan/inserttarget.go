package plan

import (
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// WriteTarget is the table ti as the rows of an INSERT or COPY are
// written to it. The rows are in the schema the statement was planned
// against (ti's), which an ALTER since may have changed: the link reads
// them by field ID (icetable.Conform). loc formats timestamptz values in
// error details.
func WriteTarget(ti *TableInfo, loc *time.Location) (*exec.Target, error) {
	if ti.Ref != "" && ti.Ref != table.MainBranch {
		if r, ok := icetable.Ref(ti.Table, ti.Ref); ok && r.SnapshotRefType == table.TagRef {
			return nil, link.TagWriteError(ti.Name, ti.Ref)
		}
	}
	sc, err := table.SchemaToArrowSchema(ti.Table.Schema(), nil, true, false)
	if err != nil {
		return nil, err
	}
	return &exec.Target{NS: ti.Namespace, Table: ti.Name, Ref: ti.Ref, Names: ti.Columns, Types: ti.Types,
		Required: ti.Required, Arrow: sc, Loc: loc}, nil
}
