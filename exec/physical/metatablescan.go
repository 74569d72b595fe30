package physical

import (
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/types"
)

// MetaTableScan reads a metadata table ("t$snapshots", exec/metatable)
// of Table, the Iceberg metadata pinned when the statement was planned,
// as a Scan reads the data files it pinned: the rows are generated when
// the scan opens. Name is the metadata table as written, for EXPLAIN and
// errors.
type MetaTableScan struct {
	Name        string
	Kind        string // "snapshots", "files"…
	Table       *table.Table
	ColumnTypes []types.T
}

func (m *MetaTableScan) Types() []types.T { return m.ColumnTypes }
func (m *MetaTableScan) Children() []Node { return nil }
func (m *MetaTableScan) Explain() Explained {
	return Explained{Name: "Metadata Table Scan on " + m.Name}
}
