package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// addKey runs ALTER TABLE … ADD [CONSTRAINT name] PRIMARY KEY (…) and
// ADD … UNIQUE (…) on a table that may hold rows: pgbench -i and
// pg_dump's output add their keys after loading the data. The rows are
// checked first, as PostgreSQL's index build does (no key held twice;
// for a primary key, no NULL), then the key joins the table's
// definition: a primary key as the schema's identifier fields (its
// columns NOT NULL), a UNIQUE constraint in the table's UNIQUE property.
// The link rebuilds the table's key index from the rows when the
// constraints change (link.Manager.Alter). Other constraints are not
// supported here.
func (s *Session) addKey(ctx context.Context, d *tableDef, ti *plan.TableInfo, c *pg.AlterTableCmd, q string) (bool, error) {
	con := c.Def.GetConstraint()
	if con == nil || (con.Contype != pg.ConstrType_CONSTR_PRIMARY && con.Contype != pg.ConstrType_CONSTR_UNIQUE) {
		return false, nil
	}
	at := func(l int32) int { return parse.CharPos(q, int(l)) }
	if err := checkKeyConstraint(con, at); err != nil {
		return true, err
	}
	if con.Indexname != "" {
		return true, pgerr.New(pgerr.FeatureNotSupported, "%s USING INDEX is not supported: Loam has no indexes", parse.ConstraintName(con.Contype)).WithPosition(at(con.Location))
	}
	primary := con.Contype == pg.ConstrType_CONSTR_PRIMARY
	var cols []string
	var ids []int
	for _, k := range con.Keys {
		name := k.GetString_().GetSval()
		i := d.index(name)
		if i < 0 {
			return true, d.noColumn(name)
		}
		cols = append(cols, name)
		ids = append(ids, d.fields[i].ID)
	}
	if primary && len(d.idents) > 0 {
		return true, pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", d.name)
	}
	uniques := d.uniques()
	name := con.Conname
	if name == "" {
		taken := map[string]bool{}
		for _, u := range uniques {
			taken[u.Name] = true
		}
		if primary {
			name = truncIdent(d.name, len("_pkey")) + "_pkey"
		} else {
			name = uniqueName(d.name, cols, taken)
		}
	}
	if err := s.checkNewKey(ctx, ti, name, cols, d.companion(ids), primary, con.NullsNotDistinct); err != nil {
		return true, err
	}
	if primary {
		d.idents = ids
		for _, id := range ids {
			d.notNull[id] = true
		}
		d.requireKey(ids)
		d.schema = true
		if name != truncIdent(d.name, len("_pkey"))+"_pkey" {
			d.props[link.PrimaryKeyNameProperty] = name
		}
		return true, nil
	}
	uniques = append(uniques, link.KeyConstraint{Name: name, Fields: ids, NullsNotDistinct: con.NullsNotDistinct})
	d.props[link.UniqueProperty] = link.EncodeUnique(uniques)
	return true, nil
}

// uniques are the table's UNIQUE constraints as the statement left them.
func (d *tableDef) uniques() []link.KeyConstraint {
	var us []link.KeyConstraint
	if v := d.prop(link.UniqueProperty); v != "" {
		_ = json.Unmarshal([]byte(v), &us)
	}
	return us
}

// checkNewKey refuses a key the rows already break: PostgreSQL's
// "could not create unique index" with the first key held twice, and for
// a primary key a column holding NULL.
func (s *Session) checkNewKey(ctx context.Context, ti *plan.TableInfo, name string, cols []string, companion string, primary, nullsNotDistinct bool) error {
	tbl := expr.QuoteIdent(ti.Namespace) + "." + expr.QuoteIdent(ti.Name)
	quoted := make([]string, len(cols))
	texts := make([]string, len(cols))
	nonNull := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = expr.QuoteIdent(c)
		texts[i] = fmt.Sprintf("coalesce(%s::text, 'null')", quoted[i])
		nonNull[i] = quoted[i] + " IS NOT NULL"
	}
	where := ""
	if !nullsNotDistinct {
		// NULLs are distinct: rows with a NULL in the key never collide.
		where = " WHERE " + strings.Join(nonNull, " AND ")
	}
	extra := ""
	if companion != "" {
		extra = ", min(" + expr.QuoteIdent(companion) + "::text)"
	}
	dup, found, err := s.firstText(ctx, fmt.Sprintf("SELECT concat_ws(', ', %s)%s FROM %s%s GROUP BY %s HAVING count(*) > 1 LIMIT 1",
		strings.Join(texts, ", "), extra, tbl, where, strings.Join(quoted, ", ")))
	if err != nil {
		return fmt.Errorf("check key %s: %w", name, err)
	}
	if found {
		e := pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", name)
		e.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", strings.Join(cols, ", "), dup)
		return e
	}
	if !primary {
		return nil
	}
	for _, c := range cols {
		has, err := s.anyRow(ctx, fmt.Sprintf("SELECT 1 FROM %s WHERE %s IS NULL LIMIT 1", tbl, expr.QuoteIdent(c)))
		if err != nil {
			return fmt.Errorf("check key %s: %w", name, err)
		}
		if has {
			return pgerr.New(pgerr.NotNullViolation, "column %q of relation %q contains null values", c, ti.Name)
		}
	}
	return nil
}

// firstText is the first column of q's first row, as text.
func (s *Session) firstText(ctx context.Context, q string) (string, bool, error) {
	stmts, err := parse.Parse(q)
	if err != nil {
		return "", false, err
	}
	cat := s.catalog()
	defer cat.release()
	p := plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
	query, err := p.Select(stmts[0].Node.GetSelectStmt())
	if err != nil {
		return "", false, err
	}
	root, err := query.Build(ctx)
	if err != nil {
		return "", false, err
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		return "", false, err
	}
	defer root.Close()
	for {
		rec, err := root.Next(ctx)
		if err != nil || rec == nil {
			return "", false, err
		}
		if rec.NumRows() > 0 {
			v := rec.Column(0).ValueStr(0)
			rec.Release()
			return v, true, nil
		}
		rec.Release()
	}
}

// requireKey makes the primary key's columns required in the Iceberg
// schema, as the spec wants of identifier fields (Java readers refuse an
// optional one), where that is safe: a column the table had from its
// creation is in every data file, and the rows were just checked for
// NULLs. A column added later may be missing from older files, which a
// reader would then refuse under a required field; it stays optional,
// NOT NULL by Loam's own check (propNotNull).
func (d *tableDef) requireKey(ids []int) {
	for i := range d.fields {
		f := &d.fields[i]
		if f.Required || !slices.Contains(ids, f.ID) || d.newField[f.ID] {
			continue
		}
		always := true
		for _, sc := range d.base.Metadata().Schemas() {
			if _, ok := sc.FindFieldByID(f.ID); !ok {
				always = false
			}
		}
		if always {
			f.Required = true
		}
	}
}

// companion is a column the check reads beside the key's when every key
// column was added after the table's creation: iceberg-go's scan fails
// ("no leaf column readers matched col indices") on a data file that has
// none of the columns it is asked for, and older files lack added
// columns. A column the table had from its creation is in every file.
func (d *tableDef) companion(ids []int) string {
	first := d.base.Metadata().Schemas()[0]
	for _, id := range ids {
		if _, ok := first.FindFieldByID(id); ok {
			return ""
		}
	}
	for _, f := range d.fields {
		if _, ok := first.FindFieldByID(f.ID); ok {
			return f.Name
		}
	}
	return ""
}
