// Package plan binds parsed statements against the catalog and plans
// them: name resolution, PostgreSQL's implicit casts and operator typing,
// a logical plan and its rewrites, and its lowering to a physical plan
// (exec/physical) with filters and projections pushed into the Iceberg
// scan. exec/build makes the operators that run a plan (Query.Build).
package plan

import (
	"context"
	"github.com/loamdb/loam/storage/link"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// TableInfo is a resolved table: where it lives and its columns.
type TableInfo struct {
	Namespace, Name string
	Table           *table.Table
	Columns         []string
	Types           []types.T
	Required        []bool
	// Defaults are the columns' DEFAULT expressions as stored (deparsed
	// text, see CheckDefault); "" for none. Nil when no column has one.
	Defaults []string
	// Identity marks GENERATED … AS IDENTITY columns: "a" (ALWAYS), "d"
	// (BY DEFAULT) or ""; nil when none is.
	Identity []string
	// Log is the table beyond the pinned Iceberg snapshot: the rows
	// committed to the write log and the statement's transaction's own,
	// and the rows those delete; nil when only the snapshot is read.
	Log *link.Read
	// ViewSQL is a view's SELECT text; Table is nil then (views.go).
	ViewSQL string
	// Sequence marks a sequence read as a relation (SELECT last_value
	// FROM s): ViewSQL is then a one-row SELECT of its state.
	Sequence bool
	// Ref is the branch or tag a name "t@ref" reads and writes
	// (timetravel.go); Table is then pinned to its snapshot.
	Ref string
	// Travel marks a table read as of a snapshot (FOR … AS OF).
	Travel bool
	// External marks a table outside engines write (WITH (writer =
	// 'external'), or created by one through the catalog): Loam reads it
	// and refuses to write it (external.go).
	External bool
}

// Catalog resolves table names for the planner.
type Catalog interface {
	// Table finds a table; schema "" means the search path.
	Table(ctx context.Context, schema, name string) (*TableInfo, error)
	Store() *icetable.Store
	// TableAsOf is ti, a table Table resolved, as of the snapshot at
	// names: that snapshot's files alone, with no write-log tail.
	TableAsOf(ctx context.Context, ti *TableInfo, at Travel) (*TableInfo, error)
	// ViewCatalog is the catalog that resolves the names inside the views
	// a query expands, usually this one. CREATE VIEW's records what its
	// own text reads, and plans the views it reads with another, since it
	// keeps PostgreSQL's direct dependencies only.
	ViewCatalog() Catalog
	// CheckSequence fails with 42P01 when name, as a user writes it or
	// regclass prints it, names no sequence.
	CheckSequence(ctx context.Context, name string) error
}

// Planner binds and plans statements of one query.
type Planner struct {
	// srfRewriting is set while groupedSRFSelect tries a statement as
	// written, so that the try does not recurse.
	srfRewriting bool

	ctx   context.Context
	cat   Catalog
	ec    *expr.Ctx
	query string
	// ParamTypes are $1..$n's types (inferred when unknown). Their
	// values, when executing, are ec.Params (params.go).
	ParamTypes []types.T
	// deps records what the plan depends on beyond the statement text
	// and catalog, shared by the planners of one statement (params.go).
	deps *planDeps
	// via is the view whose stored query this planner plans (access.go).
	via *TableInfo
	// NoParams is set for a simple-protocol Query, whose statements have
	// no parameters: a $n there is an error, as in PostgreSQL.
	NoParams bool
	// outer is the row of the enclosing query a subquery may refer to.
	outer *outerRow
	// correlated is set when binding read a column of outer.
	correlated bool
	// aggRefs counts column references while an aggregate call's
	// arguments bind (outeragg.go).
	aggRefs *aggRefs
	// ctes are the WITH queries in scope, innermost first.
	ctes *cte
	// inFrom: the planner plans one FROM item with the items left of it
	// as its lateral outer row (lateral.go).
	inFrom bool
	// reg is the emulated catalog as this query sees it (catalogs), made
	// on first use and passed on to the planners of views and subqueries.
	reg *pgcatalog.Session
	// viewDepth counts the views being expanded around this planner.
	viewDepth int
	// rels numbers the base tables of FROM (scopeCol.rel).
	rels int
	// travel holds the query's time-travel clauses by table name offset,
	// once travelScanned (timetravel.go).
	travel        map[int]parse.AsOf
	travelScanned bool
	// decor asks this planner for a decorrelated plan of its query
	// block; dframe is the query block being bound and the joins its
	// subqueries became (decorrelate.go).
	decor  *decorReq
	dframe *decorFrame
}

// New starts a planner. paramTypes may be extended as $n are found;
// params is nil when only preparing (describing) a statement. The plan
// reads parameter values at run time from the expr.Ctx it is run with;
// params given here are those a planning-time evaluation reads (see
// UsesParamValues).
func New(ctx context.Context, cat Catalog, ec *expr.Ctx, query string, paramTypes []types.T, params []types.Datum) *Planner {
	if params != nil {
		withParams := *ec
		withParams.Params = params
		ec = &withParams
	}
	return &Planner{ctx: ctx, cat: cat, ec: ec, query: query, ParamTypes: paramTypes, deps: &planDeps{}}
}

// Column is one output column of a query.
type Column struct {
	Name string
	T    types.T
	// TableOID and ColumnNum name the table column the result column
	// shows unchanged; zero otherwise.
	TableOID  uint32
	ColumnNum int16
}

// Query is a planned SELECT: its physical plan and output columns.
type Query struct {
	Root    physical.Node
	Columns []Column
	// Logical is the rewritten logical plan of the outermost query block,
	// one node a line, for EXPLAIN VERBOSE; empty for set operations and
	// VALUES.
	Logical []string
	// env is what building the plan's operators needs (lower.go).
	env build.Env
}

func pos(query string, loc int32) int {
	if loc < 0 {
		return 0
	}
	return parse.CharPos(query, int(loc))
}

// Query is the text positions in errors refer to.
func (p *Planner) Query() string { return p.query }
