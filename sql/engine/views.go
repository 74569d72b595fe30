package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Views are Iceberg views in the metastore (meta/views.go): the SELECT
// text as written, in dialect "postgresql", and the columns it yielded at
// CREATE. A query expands a view by planning that text again (plan/views.go),
// so a view reads what its tables hold now, write-log tail included, and
// names in it resolve by the reading session's search_path. CREATE VIEW
// records the tables and views the SELECT reads (viewdeps.go), so DROP
// refuses to drop them from under it (2BP01) or, with CASCADE, drops it
// too.

// ViewCatalog is c: the names inside a view resolve as the query's do.
func (c *catalog) ViewCatalog() plan.Catalog { return c }

// view is ns.name as a view, nil when there is no such view.
func (c *catalog) view(ctx context.Context, ns, name string) (*plan.TableInfo, error) {
	key := link.Key{NS: ns, Name: name}
	if c.e.missingViews.has(key) {
		return nil, nil
	}
	v, err := c.e.meta.View(ctx, ns, name)
	if errors.Is(err, meta.ErrNotFound) {
		c.e.missingViews.add(key)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load view %s.%s: %w", ns, name, err)
	}
	ts, err := ice.ColumnTypes(v.Schema, v.Properties)
	if err != nil {
		return nil, fmt.Errorf("load view %s.%s: %w", ns, name, err)
	}
	ti := &plan.TableInfo{Namespace: ns, Name: name, Types: ts, ViewSQL: v.SQL}
	for _, f := range v.Schema.Fields() {
		ti.Columns = append(ti.Columns, f.Name)
		ti.Required = append(ti.Required, false)
	}
	return ti, nil
}

// viewText is the SELECT of a CREATE VIEW statement as written: the text
// after the AS that follows the name, column list and options.
func viewText(stmt string) (string, error) {
	toks, err := pg.Scan(stmt)
	if err != nil {
		return "", err
	}
	depth := 0
	for _, t := range toks.Tokens {
		switch t.Token {
		case pg.Token_ASCII_40:
			depth++
		case pg.Token_ASCII_41:
			depth--
		case pg.Token_AS:
			if depth == 0 {
				text := strings.TrimSpace(stmt[t.End:])
				return strings.TrimSpace(strings.TrimSuffix(text, ";")), nil
			}
		}
	}
	return "", pgerr.New(pgerr.SyntaxError, "CREATE VIEW without AS")
}

func (s *Session) createView(ctx context.Context, vs *pg.ViewStmt, ps parse.Statement, q string) (*Cursor, error) {
	at := func(loc int32) int { return parse.CharPos(q, int(loc)) }
	rv := vs.View
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary views are not supported").WithPosition(at(rv.Location))
	}
	if vs.WithCheckOption != pg.ViewCheckOption_NO_CHECK_OPTION || len(vs.Options) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "view options and WITH CHECK OPTION are not supported: Loam views are read-only").WithPosition(at(rv.Location))
	}
	sel := vs.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a view must be a SELECT").WithPosition(at(rv.Location))
	}
	text, err := viewText(ps.Text)
	if err != nil {
		return nil, err
	}
	ns := rv.Schemaname
	if ns == "" {
		if ns, err = s.createSchema(ctx); err != nil {
			return nil, err
		}
	} else if ok, err := s.namespaceExists(ctx, ns); err != nil {
		return nil, err
	} else if !ok {
		return nil, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", ns).WithPosition(at(rv.Location))
	}

	// The SELECT must plan now, in the statement's text (for positions).
	cat := s.catalog()
	defer cat.release()
	rec := &readsRecorder{catalog: cat}
	p := plan.New(ctx, rec, s.exprCtx(), q, nil, nil)
	p.NoParams = true
	query, err := p.Select(sel)
	if err != nil {
		return nil, err
	}
	if len(vs.Aliases) > len(query.Columns) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	names := make([]string, len(query.Columns))
	colTypes := make([]types.T, len(query.Columns))
	seen := map[string]bool{}
	var fields []iceberg.NestedField
	ids := make([]int, len(query.Columns))
	for i, c := range query.Columns {
		names[i] = c.Name
		if i < len(vs.Aliases) {
			names[i] = vs.Aliases[i].GetString_().Sval
		}
		if seen[names[i]] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", names[i])
		}
		seen[names[i]] = true
		t := c.T
		if t.Kind == types.Unknown {
			t = types.Of(types.Text) // as PostgreSQL resolves an untyped literal column of a view
		}
		colTypes[i] = t
		it, err := ice.ToIceberg(t)
		if err != nil {
			// The Loam type property below carries the true type; outside
			// engines see the column as a string.
			it = iceberg.PrimitiveTypes.String
		}
		ids[i] = i + 1
		fields = append(fields, iceberg.NestedField{ID: i + 1, Name: names[i], Type: it})
	}
	ice.NumberFields(fields)
	for i := range fields {
		ids[i] = fields[i].ID
	}
	v := meta.View{SQL: text, Schema: iceberg.NewSchema(0, fields...),
		Properties: map[string]string{ice.TypesProperty: ice.EncodeTypes(ids, colTypes),
			propViewCreated: strconv.FormatInt(time.Now().UnixNano(), 10)}}
	self := link.Key{NS: ns, Name: rv.Relname}
	rec.reads = slices.DeleteFunc(rec.reads, func(k link.Key) bool { return k == self })
	v.Properties[propViewReads] = encodeReads(rec.reads)

	cur, err := cat.Table(ctx, ns, rv.Relname)
	if err != nil && pgerr.Code(err) != pgerr.UndefinedTable {
		return nil, err
	}
	if cur != nil {
		if !vs.Replace {
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rv.Relname)
		}
		if cur.ViewSQL == "" || cur.Sequence {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a view", rv.Relname)
		}
		if err := replaceable(cur, names, colTypes); err != nil {
			return nil, err
		}
		// The view keeps its creation time: PostgreSQL's replaced view keeps
		// its OID, which orders the views a DROP reports.
		old, err := s.eng.meta.View(ctx, ns, rv.Relname)
		if err != nil {
			return nil, err
		}
		if old.Properties[propViewCreated] != "" {
			v.Properties[propViewCreated] = old.Properties[propViewCreated]
		}
		if err := s.eng.meta.ReplaceView(ctx, ns, rv.Relname, v); err != nil {
			return nil, err
		}
		// Undone by making the old definition anew: iceberg-go refuses a
		// new version equal to an earlier one.
		s.onRollback(func(ctx context.Context) error {
			if err := s.eng.meta.DropView(ctx, ns, rv.Relname); err != nil {
				return fmt.Errorf("restore view %s.%s: %w", ns, rv.Relname, err)
			}
			return s.eng.meta.CreateView(ctx, ns, rv.Relname, old)
		})
		return &Cursor{tag: "CREATE VIEW", sess: s}, nil
	}
	if _, err := s.takeName(ctx, self); err != nil {
		return nil, err
	}
	s.eng.missingViews.forget(link.Key{NS: ns, Name: rv.Relname})
	err = s.eng.meta.CreateView(ctx, ns, rv.Relname, v)
	s.eng.missingViews.forget(link.Key{NS: ns, Name: rv.Relname}) // a lookup may have raced the create
	if errors.Is(err, meta.ErrExists) {
		return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", rv.Relname)
	}
	if err != nil {
		return nil, err
	}
	// A rolled back block drops it again, as it does its new tables.
	s.onRollback(func(ctx context.Context) error {
		if err := s.eng.meta.DropView(ctx, ns, rv.Relname); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("drop view %s.%s: %w", ns, rv.Relname, err)
		}
		return nil
	})
	return &Cursor{tag: "CREATE VIEW", sess: s}, nil
}

// replaceable checks CREATE OR REPLACE VIEW's rule: the new query keeps
// the old columns, names and types, in order, and may add columns at the
// end.
func replaceable(cur *plan.TableInfo, names []string, ts []types.T) error {
	if len(names) < len(cur.Columns) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, old := range cur.Columns {
		if names[i] != old {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column %q to %q", old, names[i]).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if ts[i] != cur.Types[i] {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", old, cur.Types[i], ts[i])
		}
	}
	return nil
}

// dropViews is DROP VIEW. Every name is resolved before any view is
// dropped, so a missing one drops none, as in PostgreSQL.
func (s *Session) dropViews(ctx context.Context, ds *pg.DropStmt) (*Cursor, error) {
	var drop []*plan.TableInfo
	for _, obj := range ds.Objects {
		ti, err := s.dropTarget(ctx, obj, ds.MissingOk, "view")
		if err != nil {
			return nil, err
		}
		if ti == nil {
			continue
		}
		if ti.Sequence {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a view", ti.Name).WithHint("Use DROP SEQUENCE to remove a sequence.")
		}
		if ti.ViewSQL == "" {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a view", ti.Name).WithHint("Use DROP TABLE to remove a table.")
		}
		drop = append(drop, ti)
	}
	targets := make([]dropObj, len(drop))
	for i, ti := range drop {
		targets[i] = dropObj{key: link.Key{NS: ti.Namespace, Name: ti.Name}, isView: true}
	}
	if err := s.checkDependents(ctx, targets, ds.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
		return nil, err
	}
	for _, ti := range drop {
		if err := s.dropLater(ctx, dropView, link.Key{NS: ti.Namespace, Name: ti.Name}); err != nil {
			return nil, err
		}
	}
	return &Cursor{tag: "DROP VIEW", sess: s}, nil
}
