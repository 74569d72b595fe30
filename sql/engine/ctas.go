package engine

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// createTableAs runs CREATE TABLE … AS query and SELECT … INTO: a table
// with the query's columns (renamed by into's column list), filled with
// its rows unless WITH NO DATA. It is one statement: if the query fails,
// the table is dropped again. The tag is PostgreSQL's: SELECT n when rows
// were written, CREATE TABLE AS otherwise.
func (s *Session) createTableAs(ctx context.Context, p *plan.Planner, into *pg.IntoClause, sel *pg.SelectStmt,
	ifNotExists bool, tc *parse.TableClauses, q string) (*Cursor, error) {
	rv := into.Rel
	at := parse.CharPos(q, int(rv.Location))
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary tables are not supported").WithPosition(at)
	}
	if err := refuseExternalAs(tc); err != nil {
		return nil, err
	}
	ns, err := s.newTableSchema(ctx, rv, q)
	if err != nil {
		return nil, err
	}
	done := &Cursor{tag: "CREATE TABLE AS", sess: s}
	if ifNotExists {
		// PostgreSQL checks before it plans the query.
		cat := s.catalog()
		_, err := cat.Table(ctx, ns, rv.Relname)
		cat.release()
		if err == nil {
			s.notice("relation %q already exists, skipping", rv.Relname)
			return done, nil
		}
	}
	// The planner refuses a SELECT with INTO: plan it without.
	saved := sel.IntoClause
	sel.IntoClause = nil
	qr, err := p.Select(sel)
	sel.IntoClause = saved
	if err == nil {
		err = s.checkAccess(ctx, p.Access())
	}
	if err != nil {
		return nil, err
	}
	if len(into.ColNames) > len(qr.Columns) {
		return nil, pgerr.New(pgerr.SyntaxError, "too many column names were specified")
	}
	nt := newTable{ns: ns, name: rv.Relname, byName: map[string]int{}, at: at}
	exprs := make([]expr.Expr, len(qr.Columns))
	for i, c := range qr.Columns {
		name := c.Name
		if i < len(into.ColNames) {
			name = into.ColNames[i].GetString_().Sval
		}
		if _, dup := nt.byName[name]; dup {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		t := c.T
		var e expr.Expr = &expr.Col{Idx: i, T: t}
		if t.Kind == types.Unknown {
			// An untyped literal makes a text column, as in PostgreSQL 15.
			t = types.TText
			e = &expr.Cast{Arg: e, T: t}
		}
		it, err := ice.ToIceberg(t)
		if err != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: %v", name, err).WithPosition(at)
		}
		nt.byName[name] = i
		nt.fields = append(nt.fields, iceberg.NestedField{ID: i + 1, Name: name, Type: it})
		nt.types = append(nt.types, t)
		exprs[i] = e
	}
	if len(nt.fields) == 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a table needs at least one column").WithPosition(at)
	}
	mark := len(s.undo)
	created, err := s.storeTable(ctx, nt, tc, ifNotExists)
	if err != nil || !created {
		return done, err
	}
	if into.SkipData {
		return done, nil
	}
	n, err := s.fillNewTable(ctx, ns, rv.Relname, &physical.Project{In: qr.Root, Exprs: exprs}, qr.Env())
	if err != nil {
		s.undoCreate(mark, link.Key{NS: ns, Name: rv.Relname})
		return nil, err
	}
	return &Cursor{tag: fmt.Sprintf("SELECT %d", n), sess: s}, nil
}

// fillNewTable writes the rows of src into the table just created, with
// an INSERT's sink over it.
func (s *Session) fillNewTable(ctx context.Context, ns, name string, src physical.Node, env build.Env) (int64, error) {
	cat := s.catalog()
	defer cat.release()
	ti, err := cat.Table(ctx, ns, name)
	if err != nil {
		return 0, fmt.Errorf("create table %s.%s as: %w", ns, name, err)
	}
	t, err := plan.WriteTarget(ti, s.loc)
	if err != nil {
		return 0, err
	}
	return s.writing(ctx, func(w link.Writer) (int64, error) {
		return runWrite(ctx, &physical.Insert{In: src, Target: t}, env, w, nil)
	})
}

// undoCreate drops again the table a failed statement created: through
// the transaction's undo list, trimmed back to mark (its length before
// the CREATE), or at once outside a transaction.
func (s *Session) undoCreate(mark int, k link.Key) {
	if s.inTx() {
		s.undoTo(mark)
		return
	}
	if err := s.dropTable(context.Background(), k.NS, k.Name); err != nil {
		s.eng.log.Warn("drop of a table created by a failed statement failed", "table", k, "err", err)
	}
}
