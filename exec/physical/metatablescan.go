package physical

import (
	"github.com/loamdb/loam/types"
)

// MetaTableScan reads a metadata table ("t$snapshots", exec/metatable)
// of Source's table, as a Scan reads its data files: a source of the
// table's current state is looked up again for each execution (so a kept
// plan sees compaction and commits since it was made), and the rows are
// generated when the scan opens. Name is the metadata table as written,
// for EXPLAIN and errors.
type MetaTableScan struct {
	Name        string
	Kind        string // "snapshots", "files"…
	Source      ScanSource
	ColumnTypes []types.T
}

func (m *MetaTableScan) Types() []types.T { return m.ColumnTypes }
func (m *MetaTableScan) Children() []Node { return nil }
func (m *MetaTableScan) Explain() Explained {
	return Explained{Name: "Metadata Table Scan on " + m.Name}
}
