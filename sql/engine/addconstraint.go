package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// ALTER TABLE … ADD CONSTRAINT, as pg_dump emits it after a table's
// data: PRIMARY KEY and UNIQUE are built over the rows already there
// (refused, as PostgreSQL refuses, when two rows share a key or a key
// column holds NULL) and enforced from then on; CHECK is checked against
// the rows there and enforced; FOREIGN KEY is recorded, not enforced.

func init() {
	// ROLLBACK of an ALTER TABLE puts these back too (altercommit.go).
	evolvedProps = append(evolvedProps, pgcatalog.PropConstraints, link.UniqueProperty, link.PrimaryKeyNameProperty)
}

func (s *Session) addConstraint(ctx context.Context, d *tableDef, ti *plan.TableInfo, c *pg.AlterTableCmd, q string) error {
	con := c.Def.GetConstraint()
	if con == nil {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE … ADD of this kind is not supported")
	}
	taken := map[string]bool{}
	for _, k := range link.Constraints(d.base, d.name) {
		taken[k.Name] = true
	}
	if v := d.prop(link.PrimaryKeyNameProperty); v != "" {
		taken[v] = true
	}
	var cons []pgcatalog.TableConstraint
	if v := d.prop(pgcatalog.PropConstraints); v != "" {
		if err := json.Unmarshal([]byte(v), &cons); err != nil {
			return fmt.Errorf("table %s: %s: %w", d.name, pgcatalog.PropConstraints, err)
		}
	}
	for _, tc := range cons {
		taken[tc.Name] = true
	}
	if con.Conname != "" && taken[con.Conname] {
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", con.Conname, d.name)
	}
	switch con.Contype {
	case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
		return s.addKey(ctx, d, ti, con, taken, q)
	case pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN:
		dr, err := s.draftConstraint(ctx, con, ti.Namespace, d.name, "", q)
		if err != nil {
			return err
		}
		ds := []conDraft{dr}
		if err := nameDrafts(d.name, ds, taken); err != nil {
			return err
		}
		tcs, err := resolveDrafts(ds, d.fields, d.name)
		if err != nil {
			return err
		}
		tc := tcs[0]
		if err := s.bindChecks(ctx, ds, d.name, d.fields, d.types, q); err != nil {
			return err
		}
		if tc.Type == "c" && !con.SkipValidation {
			bad, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s.%s WHERE NOT (%s) LIMIT 1",
				expr.QuoteIdent(ti.Namespace), expr.QuoteIdent(ti.Name), tc.Expr))
			if err != nil {
				return err
			}
			if bad {
				return pgerr.New(pgerr.CheckViolation, "check constraint %q of relation %q is violated by some row", tc.Name, d.name)
			}
		}
		d.props[pgcatalog.PropConstraints] = pgcatalog.EncodeConstraints(append(cons, tc))
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported", parse.ConstraintName(con.Contype)).
		WithPosition(parse.CharPos(q, int(con.Location)))
}

// addKey adds a PRIMARY KEY or UNIQUE constraint over the table's rows.
func (s *Session) addKey(ctx context.Context, d *tableDef, ti *plan.TableInfo, con *pg.Constraint, taken map[string]bool, q string) error {
	if err := checkKeyConstraint(con, func(l int32) int { return parse.CharPos(q, int(l)) }); err != nil {
		return err
	}
	if con.Indexname != "" {
		return pgerr.New(pgerr.FeatureNotSupported, "ADD CONSTRAINT … USING INDEX is not supported: Loam has no indexes to use")
	}
	primary := con.Contype == pg.ConstrType_CONSTR_PRIMARY
	// The key index is built from the table's committed rows (rekey):
	// rows the open block wrote are not there yet.
	if len(s.ownWrites(link.Key{NS: ti.Namespace, Name: ti.Name})) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "ALTER TABLE … ADD %s is not supported in a transaction block that has written to %q", parse.ConstraintName(con.Contype), d.name).
			WithHint("COMMIT first; restore without pg_restore's --single-transaction or psql's --single-transaction.")
	}
	if primary && len(d.idents) > 0 {
		return pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", d.name)
	}
	var cols []string
	var ids []int
	for _, k := range con.Keys {
		col := k.GetString_().Sval
		i := d.index(col)
		if i < 0 {
			return pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", col).WithPosition(parse.CharPos(q, int(con.Location)))
		}
		cols = append(cols, col)
		ids = append(ids, d.fields[i].ID)
	}
	name := con.Conname
	if name == "" && primary {
		name = truncIdent(d.name, len("_pkey")) + "_pkey"
	} else if name == "" {
		name = uniqueName(d.name, cols, taken)
	}
	if taken[name] {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	tbl := expr.QuoteIdent(ti.Namespace) + "." + expr.QuoteIdent(ti.Name)
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = expr.QuoteIdent(c)
	}
	if primary {
		// A primary key's columns are NOT NULL: PostgreSQL makes them so,
		// after checking the rows.
		for i, col := range cols {
			f := &d.fields[d.index(col)]
			if f.Required || d.notNull[f.ID] {
				f.Required = true
				continue
			}
			has, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NULL LIMIT 1", tbl, quoted[i]))
			if err != nil {
				return err
			}
			if has {
				return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", col, d.name)
			}
			f.Required = true
		}
	}
	// Two rows of one key (NULLs are distinct unless NULLS NOT DISTINCT).
	texts := make([]string, len(cols))
	var where []string
	for i, c := range quoted {
		texts[i] = c + "::text"
		if !con.NullsNotDistinct {
			where = append(where, c+" IS NOT NULL")
		}
	}
	dupQ := fmt.Sprintf("SELECT %s FROM %s", strings.Join(texts, ", "), tbl)
	if len(where) > 0 {
		dupQ += " WHERE " + strings.Join(where, " AND ")
	}
	dupQ += fmt.Sprintf(" GROUP BY %s HAVING count(*) > 1 LIMIT 1", strings.Join(quoted, ", "))
	dup, err := s.firstRowText(ctx, dupQ)
	if err != nil {
		return err
	}
	if dup != nil {
		e := pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", name)
		e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(cols, ", "), strings.Join(dup, ", "))
		return e
	}
	if primary {
		d.idents = ids
		d.props[link.PrimaryKeyNameProperty] = name
		d.schema = true
	} else {
		var us []link.KeyConstraint
		if v := d.prop(link.UniqueProperty); v != "" {
			if err := json.Unmarshal([]byte(v), &us); err != nil {
				return fmt.Errorf("table %s: %s: %w", d.name, link.UniqueProperty, err)
			}
		}
		us = append(us, link.KeyConstraint{Name: name, Fields: ids, NullsNotDistinct: con.NullsNotDistinct})
		d.props[link.UniqueProperty] = link.EncodeUnique(us)
	}
	if !d.rekey {
		// Registered before the ALTER's own undo (commitDef), so it runs
		// after it: a rolled-back key leaves the key index too.
		key := link.Key{NS: ti.Namespace, Name: ti.Name}
		s.onRollback(func(ctx context.Context) error { return s.rekey(ctx, key) })
	}
	d.rekey = true
	return nil
}

// rekey makes the link load the table's state again, with a key index of
// the constraints it has now: its committed log tail goes into Iceberg
// first, as for a rename.
func (s *Session) rekey(ctx context.Context, key link.Key) error {
	if err := s.eng.link.SetAside(ctx, key, func() error { return nil }); err != nil {
		return fmt.Errorf("rebuild the key index of %s.%s: %w", key.NS, key.Name, err)
	}
	return nil
}

// firstRowText is the first row of a query whose columns are text, nil
// when it returns none (NULLs print as "null", as in PostgreSQL's key
// details).
func (s *Session) firstRowText(ctx context.Context, q string) ([]string, error) {
	stmts, err := parse.Parse(q)
	if err != nil {
		return nil, err
	}
	cat := s.catalog()
	defer cat.release()
	p := plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
	query, err := p.Select(stmts[0].Node.GetSelectStmt())
	if err != nil {
		return nil, err
	}
	root, err := query.Build(ctx)
	if err != nil {
		return nil, err
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		return nil, err
	}
	defer root.Close()
	for {
		rec, err := root.Next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		out := make([]string, rec.NumCols())
		for i := range out {
			col := rec.Column(i)
			switch {
			case col.IsNull(0):
				out[i] = "null"
			default:
				if sa, ok := col.(*array.String); ok {
					out[i] = sa.Value(0)
				} else {
					out[i] = col.ValueStr(0)
				}
			}
		}
		rec.Release()
		return out, nil
	}
}

// addIdentity runs ALTER TABLE … ALTER COLUMN … ADD GENERATED … AS
// IDENTITY [(SEQUENCE NAME … and options)], as pg_dump emits it for an
// identity column: a sequence owned by the column, the column's values
// from it.
func (s *Session) addIdentity(ctx context.Context, d *tableDef, ti *plan.TableInfo, c *pg.AlterTableCmd, q string) error {
	con := c.Def.GetConstraint()
	i := d.index(c.Name)
	if i < 0 {
		return d.noColumn(c.Name)
	}
	if _, ok := seqTypes[d.types[i].Kind]; !ok {
		return pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	f := d.fields[i]
	if !f.Required && !d.notNull[f.ID] {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q must be declared NOT NULL before identity can be added", c.Name, d.name)
	}
	if d.identity[i] != "" {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q is already an identity column", c.Name, d.name)
	}
	if d.defaults[i] != "" {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "column %q of relation %q already has a default value", c.Name, d.name)
	}
	sq, err := seqOptions(con.Options, d.types[i], q)
	if err != nil {
		return err
	}
	sq.OwnedBy = d.name + "." + c.Name
	ns, name := ti.Namespace, ""
	for _, o := range con.Options {
		if de := o.GetDefElem(); de != nil && de.Defname == "sequence_name" {
			var parts []string
			for _, n := range de.Arg.GetList().GetItems() {
				parts = append(parts, n.GetString_().Sval)
			}
			if len(parts) == 0 {
				continue
			}
			name = parts[len(parts)-1]
			if len(parts) > 1 && parts[len(parts)-2] != ns {
				return pgerr.New(pgerr.FeatureNotSupported, "an identity column's sequence must be in its table's schema %q", ns)
			}
		}
	}
	if name == "" {
		if name, err = s.chooseSeqName(ctx, ns, d.name+"_"+c.Name, nil); err != nil {
			return err
		}
	}
	if err := s.storeSequence(ctx, ns, name, sq); err != nil {
		return err
	}
	ref := name
	if ns != "public" {
		ref = ns + "." + name
	}
	d.defaults[i] = fmt.Sprintf("nextval('%s'::regclass)", ref)
	d.identity[i] = string(con.GeneratedWhen[0])
	return nil
}
