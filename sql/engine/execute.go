package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Prepare parses and plans the statements in query. The simple protocol
// passes a whole query string (zero or more statements); the extended
// protocol passes one statement with the parameter type OIDs the client
// named (0 = infer). An empty query yields no statements.
func (s *Session) Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]*Statement, error) {
	return s.prepare(ctx, query, paramOIDs, false)
}

// PrepareSimple prepares a simple-protocol Query string. Its statements
// have no parameters: a $n in them fails with 42P02 where PostgreSQL's
// does, not later at a Bind the client never sends.
func (s *Session) PrepareSimple(ctx context.Context, query string) ([]*Statement, error) {
	return s.prepare(ctx, query, nil, true)
}

func (s *Session) prepare(ctx context.Context, query string, paramOIDs []uint32, simple bool) ([]*Statement, error) {
	s.stmtNow = time.Now() // a Query's statements share it, as in PostgreSQL
	s.startStatement(ctx)
	stmts, err := parse.Parse(query)
	if err != nil {
		return nil, err
	}
	paramTypes := make([]types.T, len(paramOIDs))
	for i, oid := range paramOIDs {
		t, ok := types.FromOID(oid)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "type with OID %d is not supported", oid)
		}
		paramTypes[i] = t
	}
	// A failed block refuses a lone statement at Parse, as PostgreSQL does:
	// planning nothing would report zero parameters, so the client's Bind
	// would fail with 08P01 instead of 25P02.
	if s.tx == 'E' && len(stmts) == 1 && !isTransactionExit(stmts[0].Node) {
		return nil, pgerr.New(pgerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	out := make([]*Statement, 0, len(stmts))
	for _, ps := range stmts {
		st := &Statement{Query: ps.Text, prep: prepared{stmt: ps, query: query}, simple: simple, multi: len(stmts) > 1}
		if s.tx == 'E' || len(stmts) > 1 {
			// A failed transaction plans nothing (Execute refuses), and the
			// statements of a multi-statement string are planned as each
			// runs, since one may create the table the next one reads.
			// Nothing is planned in a failed transaction; Execute refuses.
			st.ParamTypes = paramTypes
			out = append(out, st)
			continue
		}
		cat := s.catalog()
		cat.recordDeps()
		p := plan.New(ctx, cat, s.exprCtx(), query, append([]types.T(nil), paramTypes...), nil)
		p.NoParams = simple
		cols, err := s.describe(ctx, p, ps, cat, st)
		if cs := ps.Node.GetCopyStmt(); cs != nil && err == nil {
			st.Copy, err = s.prepareCopy(ctx, cs, p, cat)
		}
		cat.release()
		if err != nil {
			return nil, err
		}
		st.Columns = cols
		st.ParamTypes = p.ParamTypes
		for i, t := range st.ParamTypes {
			if t.Kind == types.Unknown {
				if _, ok := ps.Node.Node.(*pg.Node_SelectStmt); ok {
					// Nothing in the query decided its type ($1 IS NULL).
					return nil, pgerr.New(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
				}
				st.ParamTypes[i] = types.TText
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// isTransactionExit reports whether a statement may run in a failed
// transaction block (PostgreSQL's IsTransactionExitStmt).
func isTransactionExit(n *pg.Node) bool {
	ts := n.GetTransactionStmt()
	if ts == nil {
		return false
	}
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg.TransactionStmtKind_TRANS_STMT_PREPARE, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return true
	}
	return false
}

// exprCtx is the evaluation context of a statement. now() is the time its
// transaction started, as in PostgreSQL: the block's, the implicit
// transaction's (a Query's statements, messages up to a Sync), or the
// statement's own.
func (s *Session) exprCtx() *expr.Ctx {
	if s.ec != nil {
		return s.ec // the statement's expressions share one (startStatement)
	}
	stmt := s.stmtNow
	if stmt.IsZero() {
		stmt = time.Now()
	}
	if s.tx == 'I' && !s.implicit {
		s.ec = &expr.Ctx{Loc: s.loc, Now: stmt, Stmt: stmt}
	} else {
		if s.txNow.IsZero() {
			s.txNow = stmt
		}
		s.ec = &expr.Ctx{Loc: s.loc, Now: s.txNow, Stmt: stmt}
	}
	if s.runCtx != nil {
		s.ec.Context = s.runCtx
	}
	s.ec.Session = exprSession{s}
	return s.ec
}

// describe plans a statement without running it, for its result columns
// and parameter types. A SELECT's or INSERT's plan is kept for its
// executions (plancache.go) when it may serve them.
func (s *Session) describe(ctx context.Context, p *plan.Planner, ps parse.Statement, cat *catalog, st *Statement) ([]Column, error) {
	switch n := ps.Node.Node.(type) {
	case *pg.Node_SelectStmt:
		if n.SelectStmt.IntoClause != nil {
			return nil, nil // SELECT … INTO returns no rows
		}
	}
	switch ps.Node.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		k, err := s.planKept(ctx, p, ps.Node, cat)
		if err != nil {
			return nil, err
		}
		if p.Reusable() {
			st.kept = k
		}
		return k.cols, nil
	}
	switch n := ps.Node.Node.(type) {
	case *pg.Node_VariableShowStmt:
		return s.showColumns(n.VariableShowStmt), nil
	case *pg.Node_ExecuteStmt:
		if st, ok := s.sqlPrepared[n.ExecuteStmt.Name]; ok {
			return st.Columns, nil
		}
		return nil, pgerr.New(pgerr.UndefinedPreparedStatement, "prepared statement %q does not exist", n.ExecuteStmt.Name)
	case *pg.Node_FetchStmt:
		if n.FetchStmt.Ismove {
			return nil, nil
		}
		c, err := s.lookupCursor(n.FetchStmt.Portalname)
		if err != nil {
			return nil, err
		}
		return c.cur.Columns(), nil
	case *pg.Node_ExplainStmt:
		if sel := n.ExplainStmt.Query.GetSelectStmt(); sel != nil {
			if _, err := p.Select(sel); err != nil {
				return nil, err
			}
		}
		return explainColumns, nil
	}
	return nil, nil
}

func columns(q *plan.Query) []Column {
	cols := make([]Column, len(q.Columns))
	for i, c := range q.Columns {
		cols[i] = Column{Name: c.Name, Type: c.T, TableOID: c.TableOID, ColumnNum: c.ColumnNum}
	}
	return cols
}

// Execute runs a prepared statement with its parameters (one Datum per
// ParamTypes entry, already decoded by the caller).
func (s *Session) Execute(ctx context.Context, st *Statement, params []types.Datum) (*Cursor, error) {
	if !st.simple {
		s.stmtNow = time.Now() // an Execute message starts a statement
	}
	c, err := s.execute(ctx, st, params)
	if n := st.prep.stmt.Node; n != nil {
		if kind := auditKind(n); kind != "" {
			s.auditStatement(ctx, kind, st.Query, err)
		}
	}
	if err != nil {
		s.markFailed()
		if ctx.Err() != nil {
			return nil, pgerr.Canceled(ctx)
		}
		return nil, err
	}
	return c, nil
}

func (s *Session) execute(ctx context.Context, st *Statement, params []types.Datum) (*Cursor, error) {
	ps := st.prep.stmt
	s.startStatement(ctx)
	if s.tx == 'I' && s.localSaved != nil {
		// set_config(…, true) outside a block lasted for its statement.
		s.restoreLocal()
	}
	if s.tx == 'E' {
		if ts := ps.Node.GetTransactionStmt(); ts != nil {
			switch ts.Kind {
			case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK, pg.TransactionStmtKind_TRANS_STMT_COMMIT:
				_ = s.endTx(false)
				return &Cursor{tag: "ROLLBACK", sess: s}, nil
			case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
				return s.savepoint(ts)
			}
		}
		return nil, pgerr.New(pgerr.InFailedTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if len(params) < len(st.ParamTypes) {
		return nil, pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement requires %d", len(params), len(st.ParamTypes))
	}
	if err := s.refuseHoldingRows(ps); err != nil {
		return nil, err
	}
	if rv := modifiedTable(ps.Node); rv != nil && ps.Ref == nil {
		// Before any lookup pins the table's state (dml.go).
		if err := s.lockRows(ctx, rv); err != nil {
			return nil, err
		}
	}
	if err := s.lockUpsert(ctx, ps); err != nil {
		return nil, err
	}
	after, err := s.authorizeDDL(ctx, ps.Node, st.prep.query)
	if err != nil {
		return nil, err
	}
	c, err := s.executeStmt(ctx, st, params)
	if err == nil && after != nil {
		if err := after(ctx); err != nil {
			return nil, err
		}
	}
	return c, err
}

// executeStmt runs a statement whose privileges to run are checked:
// queries and writes from their kept plan, the rest by kind.
func (s *Session) executeStmt(ctx context.Context, st *Statement, params []types.Datum) (*Cursor, error) {
	ps := st.prep.stmt
	if c, ok, err := s.executeKept(ctx, st, params); ok {
		return c, err
	}
	// Positions are relative to the whole query string.
	cat := s.catalog()
	p := plan.New(ctx, cat, s.exprCtx(), st.prep.query, append([]types.T(nil), st.ParamTypes...), params)
	p.NoParams = st.simple
	if ps.Ref != nil { // ALTER TABLE … CREATE|DROP BRANCH|TAG
		cat.release()
		return s.alterRef(ctx, ps.Ref, st.prep.query)
	}
	switch n := ps.Node.Node.(type) {
	case *pg.Node_SelectStmt:
		if into := n.SelectStmt.IntoClause; into != nil {
			defer cat.release()
			return s.createTableAs(ctx, p, into, n.SelectStmt, false, nil, st.prep.query)
		}
		cat.release()
		return nil, fmt.Errorf("engine: SELECT not run from its kept plan") // executeKept runs it
	case *pg.Node_ExplainStmt:
		return s.explain(ctx, p, n.ExplainStmt, cat.release)
	case *pg.Node_CreateStmt:
		return s.createTable(ctx, n.CreateStmt, ps, st.prep.query)
	case *pg.Node_CreateTableAsStmt:
		defer cat.release()
		cs := n.CreateTableAsStmt
		sel := cs.Query.GetSelectStmt()
		if cs.Objtype != pg.ObjectType_OBJECT_TABLE {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", parse.StmtName(ps.Node))
		}
		if sel == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE TABLE … AS EXECUTE is not supported")
		}
		return s.createTableAs(ctx, p, cs.Into, sel, cs.IfNotExists, ps.Table, st.prep.query)
	case *pg.Node_CreateSeqStmt:
		cat.release()
		return s.createSequence(ctx, n.CreateSeqStmt, st.prep.query)
	case *pg.Node_AlterSeqStmt:
		cat.release()
		return s.alterSequence(ctx, n.AlterSeqStmt, st.prep.query)
	case *pg.Node_ViewStmt:
		return s.createView(ctx, n.ViewStmt, ps, st.prep.query)
	case *pg.Node_CreateSchemaStmt:
		return s.createSchemaStmt(ctx, n.CreateSchemaStmt)
	case *pg.Node_DropStmt:
		return s.drop(ctx, n.DropStmt)
	case *pg.Node_CommentStmt:
		cat.release()
		return s.comment(ctx, n.CommentStmt)
	case *pg.Node_AlterTableStmt:
		cat.release()
		if ownerOnlyAlter(n.AlterTableStmt) {
			return s.alterTableOwner(ctx, n.AlterTableStmt)
		}
		if tableOptionsAlter(n.AlterTableStmt) {
			return s.alterTableOptions(ctx, n.AlterTableStmt, ps, st.prep.query)
		}
		return s.alterTable(ctx, n.AlterTableStmt, ps.Table, st.prep.query)
	case *pg.Node_RenameStmt:
		cat.release()
		if rs := n.RenameStmt; rs.RenameType == pg.ObjectType_OBJECT_ROLE {
			return s.renameRole(ctx, rs.Subname, rs.Newname)
		}
		return s.rename(ctx, n.RenameStmt, st.prep.query)
	case *pg.Node_TransactionStmt:
		return s.transaction(n.TransactionStmt)
	case *pg.Node_CreateRoleStmt:
		cat.release()
		return s.createRole(ctx, n.CreateRoleStmt, st.prep.query)
	case *pg.Node_AlterRoleStmt:
		cat.release()
		return s.alterRole(ctx, n.AlterRoleStmt, st.prep.query)
	case *pg.Node_DropRoleStmt:
		cat.release()
		return s.dropRole(ctx, n.DropRoleStmt)
	case *pg.Node_GrantStmt:
		cat.release()
		return s.grantStmt(ctx, n.GrantStmt)
	case *pg.Node_GrantRoleStmt:
		cat.release()
		return s.grantRoleStmt(ctx, n.GrantRoleStmt, st.prep.query)
	case *pg.Node_AlterDefaultPrivilegesStmt:
		cat.release()
		return s.alterDefaultPrivileges(ctx, n.AlterDefaultPrivilegesStmt)
	case *pg.Node_AlterOwnerStmt:
		cat.release()
		return s.alterOwnerStmt(ctx, n.AlterOwnerStmt)
	case *pg.Node_ReassignOwnedStmt:
		cat.release()
		return s.reassignOwned(ctx, n.ReassignOwnedStmt)
	case *pg.Node_DropOwnedStmt:
		cat.release()
		return s.dropOwned(ctx, n.DropOwnedStmt)
	case *pg.Node_VariableSetStmt:
		return s.setStmt(n.VariableSetStmt)
	case *pg.Node_VariableShowStmt:
		return s.show(ctx, n.VariableShowStmt)
	case *pg.Node_IndexStmt:
		// Loam has no secondary indexes; files are pruned by partition and
		// column statistics instead. Accept the statement as a no-op.
		if n.IndexStmt.Concurrent {
			if err := s.refuseInBlock(st, "CREATE INDEX CONCURRENTLY"); err != nil {
				return nil, err
			}
		}
		return &Cursor{tag: "CREATE INDEX", sess: s}, nil
	case *pg.Node_LockStmt:
		cat.release()
		return s.lockTables(ctx, st, n.LockStmt)
	case *pg.Node_TruncateStmt:
		cat.release()
		return s.truncate(ctx, n.TruncateStmt, st.prep.query)
	case *pg.Node_CheckPointStmt:
		// "INSERT …; CHECKPOINT" in one Query: the implicit transaction's
		// rows commit first, so the checkpoint takes them along.
		if err := s.Finish(); err != nil {
			return nil, err
		}
		if err := s.eng.Checkpoint(ctx); err != nil {
			return nil, err
		}
		return &Cursor{tag: "CHECKPOINT", sess: s}, nil
	case *pg.Node_VacuumStmt:
		cat.release()
		return s.vacuum(ctx, st, n.VacuumStmt)
	case *pg.Node_CopyStmt:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "COPY must be sent as a query of its own, not among other statements")
	case *pg.Node_DeclareCursorStmt:
		return s.declareCursor(ctx, p, n.DeclareCursorStmt, cat.release)
	case *pg.Node_FetchStmt:
		cat.release()
		return s.fetch(n.FetchStmt)
	case *pg.Node_ClosePortalStmt:
		cat.release()
		return s.closeCursor(n.ClosePortalStmt.Portalname)
	case *pg.Node_DiscardStmt:
		if n.DiscardStmt.Target == pg.DiscardMode_DISCARD_ALL {
			if err := s.refuseInBlock(st, "DISCARD ALL"); err != nil {
				return nil, err
			}
			s.discardAll()
		}
		s.closeCursors(true)
		s.deallocateSQL("", true)
		return &Cursor{tag: "DISCARD ALL", sess: s}, nil
	case *pg.Node_DeallocateStmt:
		// A PREPAREd statement is the session's; the protocol's are the
		// wire layer's, which drops them (see Statement.Deallocates).
		cat.release()
		name := n.DeallocateStmt.Name
		done := s.deallocateSQL(name, name == "")
		if name == "" {
			return &Cursor{tag: "DEALLOCATE ALL", sess: s}, nil
		}
		return &Cursor{tag: "DEALLOCATE", sess: s, deallocated: done}, nil
	case *pg.Node_PrepareStmt:
		cat.release()
		return s.prepareSQL(ctx, n.PrepareStmt, ps, st.prep.query)
	case *pg.Node_ExecuteStmt:
		cat.release()
		return s.executeSQL(ctx, n.ExecuteStmt, st.prep.query)
	}
	if what := unsupportedObject(ps.Node); what != "" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", what)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", parse.StmtName(ps.Node))
}

// executeKept runs a SELECT (but SELECT … INTO) or an INSERT from the
// statement's kept plan, or from a new one (plancache.go); ok is false
// for other statements.
func (s *Session) executeKept(ctx context.Context, st *Statement, params []types.Datum) (c *Cursor, ok bool, err error) {
	ps := st.prep.stmt
	switch n := ps.Node.Node.(type) {
	case *pg.Node_SelectStmt:
		if n.SelectStmt.IntoClause != nil || ps.Ref != nil {
			return nil, false, nil
		}
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt:
		if ps.Ref != nil {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	k, reused, err := s.keptFor(ctx, st, params)
	if err != nil {
		return nil, true, err
	}
	if err := s.checkAccess(ctx, k.access); err != nil {
		k.cat.release()
		return nil, true, err
	}
	if st.Columns != nil && !sameResult(st.Columns, k.cols) {
		// The client decodes rows by the RowDescription it got for the
		// statement (pgx caches it): rows of another shape would be
		// misread, so refuse as PostgreSQL does.
		k.cat.release() // the plan was never opened: nothing else to free
		return nil, true, pgerr.New(pgerr.FeatureNotSupported, "cached plan must not change result type")
	}
	k.busy = true
	done := func() {
		k.cat.release()
		k.busy = false
	}
	env := k.env(reused)
	if k.ins {
		defer done()
		c, err := s.runWriteStmt(ctx, k.q, env, k.tag)
		return c, true, err
	}
	root, err := build.Build(ctx, k.q.Root, env)
	if err != nil {
		done()
		return nil, true, err
	}
	c, err = s.queryCursor(ctx, k.cols, root, done)
	return c, true, err
}

// Deallocates says whether st drops prepared statements once executed:
// DEALLOCATE name, or every one for DEALLOCATE ALL and DISCARD ALL. The
// statements live in the wire connection, which acts on this.
func (st *Statement) Deallocates() (name string, all, ok bool) {
	if st.prep.stmt.Node == nil { // a Statement not made by Prepare (tests)
		return "", false, false
	}
	switch n := st.prep.stmt.Node.Node.(type) {
	case *pg.Node_DeallocateStmt:
		return n.DeallocateStmt.Name, n.DeallocateStmt.Name == "", true
	case *pg.Node_DiscardStmt:
		return "", true, n.DiscardStmt.Target == pg.DiscardMode_DISCARD_ALL
	}
	return "", false, false
}

// sameResult says whether a re-planned statement's columns are those it
// was described with: names and types (with typmod), as PostgreSQL's
// equalTupleDescs compares them; the source table's OID may change.
func sameResult(a, b []Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}

func (s *Session) queryCursor(ctx context.Context, cols []Column, root exec.Operator, release func()) (*Cursor, error) {
	// The query's operators take their memory from one budget, which
	// they find in the context Open gets; closing it removes any spill
	// files an operator left.
	budget := s.eng.queryMem.NewBudget()
	ctx = mem.WithBudget(ctx, budget)
	if err := root.Open(ctx); err != nil {
		root.Close()
		budget.Close()
		if release != nil {
			release()
		}
		return nil, err
	}
	closed := false
	c := &Cursor{columns: cols, sess: s}
	run := s.runCtx // the statement's, which root's expressions watch
	c.next = func(ctx context.Context) (arrow.RecordBatch, error) {
		if err := ctx.Err(); err != nil {
			return nil, pgerr.Canceled(ctx)
		}
		// Each fetch runs under its own context: the budget goes along.
		ctx = mem.WithBudget(ctx, budget)
		if run != nil {
			run.set(ctx) // a portal's rows may be read under a later one
		}
		rec, err := root.Next(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, pgerr.Canceled(ctx)
		}
		return rec, err
	}
	c.close = func() {
		if !closed {
			closed = true
			root.Close()
			budget.Close()
			if release != nil {
				release()
			}
		}
	}
	c.tagFn = func(rows int64) string { return fmt.Sprintf("SELECT %d", rows) }
	return c, nil
}
