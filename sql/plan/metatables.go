package plan

import (
	"context"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/metatable"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// MetaTable finds the Iceberg table behind a metadata table's name,
// "t$snapshots" and the others of exec/metatable: the table t of schema
// (the search path when ""), and the kind. It is nil when name is no
// metadata table of an existing table; a real relation of that name wins,
// so callers ask only once the name resolves to nothing else.
func MetaTable(ctx context.Context, cat Catalog, schema, name string) (*TableInfo, string) {
	base, kind, ok := metatable.Split(name)
	if !ok {
		return nil, ""
	}
	ti, err := cat.Table(ctx, schema, base)
	if err != nil || ti.Table == nil || ti.ViewSQL != "" || ti.Sequence {
		return nil, ""
	}
	return ti, kind
}

// metaTableItem is the FROM item of a metadata table, or nil when rv names
// none. Its rows describe the table as the query pinned it: the committed
// Iceberg metadata, without the write-log tail.
func (p *Planner) metaTableItem(rv *pg.RangeVar) (*fromItem, error) {
	ti, kind := MetaTable(p.ctx, p.cat, rv.Schemaname, rv.Relname)
	if ti == nil {
		return nil, nil
	}
	p.need(ti, "SELECT", rv.Location)
	mcols, err := metatable.Columns(kind, ti.Table)
	if err != nil {
		return nil, pgerr.Wrap(pgerr.InternalError, err, "metadata table %q", rv.Relname)
	}
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	cols := make([]scopeCol, len(mcols))
	ts := make([]types.T, len(mcols))
	for i, c := range mcols {
		cols[i] = scopeCol{table: alias, name: c.Name, t: c.T}
		ts[i] = c.T
	}
	src := p.scanSource(ti)
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.MetaTableScan{Name: rv.Relname, Kind: kind, Source: src, ColumnTypes: ts}, nil
	}}, nil
}

// isMetaTable reports whether rv names a metadata table.
func isMetaTable(p *Planner, rv *pg.RangeVar) bool {
	ti, _ := MetaTable(p.ctx, p.cat, rv.Schemaname, rv.Relname)
	return ti != nil
}
