package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/iceberg-go"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// CHECK and FOREIGN KEY constraints, of CREATE TABLE and of ALTER TABLE …
// ADD CONSTRAINT (which pg_dump emits after a table's COPY data). Both are
// kept in the table property pgcatalog.PropConstraints, by field ID, and
// shown in pg_constraint. CHECK constraints are enforced on INSERT, UPDATE
// and COPY (plan.WriteChecks) and checked against the existing rows when
// added; FOREIGN KEY constraints are recorded only: Loam does not enforce
// them (docs/migrating.md says so).

// conDraft is a CHECK or FOREIGN KEY constraint with its columns by name,
// before they are resolved to field IDs.
type conDraft struct {
	tc   pgcatalog.TableConstraint
	cols []string
	pos  int
}

// draftConstraint reads con, a CHECK or FOREIGN KEY constraint of table
// (of column col when a column constraint). The name is left empty when
// con gives none; nameDrafts chooses PostgreSQL's.
func (s *Session) draftConstraint(ctx context.Context, con *pg.Constraint, ns, table, col, q string) (conDraft, error) {
	d := conDraft{tc: pgcatalog.TableConstraint{Name: con.Conname}, pos: parse.CharPos(q, int(con.Location))}
	switch con.Contype {
	case pg.ConstrType_CONSTR_CHECK:
		text, err := deparseExpr(con.RawExpr)
		if err != nil {
			return d, err
		}
		d.tc.Type, d.tc.Expr, d.tc.Def = "c", text, "CHECK (("+text+"))"
		if con.SkipValidation {
			d.tc.Def += " NOT VALID"
		}
		// Its columns are those the expression names, a column
		// constraint's too (PostgreSQL names and keys it so).
		d.cols = columnRefs(con.RawExpr)
	case pg.ConstrType_CONSTR_FOREIGN:
		if col != "" {
			d.cols = []string{col}
		}
		for _, n := range con.FkAttrs {
			d.cols = append(d.cols, n.GetString_().Sval)
		}
		for _, n := range con.PkAttrs {
			d.tc.RefCols = append(d.tc.RefCols, n.GetString_().Sval)
		}
		rv := con.Pktable
		d.tc.Type, d.tc.RefNS, d.tc.RefTable = "f", rv.Schemaname, rv.Relname
		if d.tc.RefNS == "" && rv.Relname == table {
			d.tc.RefNS = ns
		}
		if d.tc.RefNS != ns || rv.Relname != table {
			// The referenced table must exist (a table referencing itself
			// is being created).
			cat := s.catalog()
			ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
			cat.release()
			if err != nil {
				return d, pgerr.From(err).WithPosition(parse.CharPos(q, int(rv.Location)))
			}
			d.tc.RefNS = ti.Namespace
			if len(d.tc.RefCols) == 0 && ti.Table != nil {
				for _, id := range ti.Table.Schema().IdentifierFieldIDs {
					if f, ok := ti.Table.Schema().FindFieldByID(id); ok {
						d.tc.RefCols = append(d.tc.RefCols, f.Name)
					}
				}
			}
		}
		if len(d.tc.RefCols) == 0 {
			return d, pgerr.New(pgerr.InvalidForeignKey, "there is no primary key for referenced table %q", rv.Relname)
		}
		if len(d.tc.RefCols) != len(d.cols) {
			return d, pgerr.New(pgerr.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
		}
		d.tc.OnUpdate, d.tc.OnDelete = fkAction(con.FkUpdAction), fkAction(con.FkDelAction)
		d.tc.Def = fkDef(d.cols, d.tc)
		if con.Conname != "" {
			s.notice("foreign key constraint %q of relation %q is recorded but not enforced", con.Conname, table)
		} else {
			s.notice("foreign key constraint of relation %q is recorded but not enforced", table)
		}
	default:
		return d, pgerr.New(pgerr.FeatureNotSupported, "constraint %s is not supported", parse.ConstraintName(con.Contype)).WithPosition(d.pos)
	}
	return d, nil
}

func fkAction(a string) string {
	if a == "" {
		return "a"
	}
	return a
}

// fkDef is pg_get_constraintdef's text of a foreign key on cols.
func fkDef(cols []string, tc pgcatalog.TableConstraint) string {
	quote := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = expr.QuoteIdent(n)
		}
		return strings.Join(out, ", ")
	}
	ref := expr.QuoteIdent(tc.RefTable)
	if tc.RefNS != "" && tc.RefNS != "public" {
		ref = expr.QuoteIdent(tc.RefNS) + "." + ref
	}
	def := "FOREIGN KEY (" + quote(cols) + ") REFERENCES " + ref + "(" + quote(tc.RefCols) + ")"
	actions := map[string]string{"r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}
	if a, ok := actions[tc.OnUpdate]; ok {
		def += " ON UPDATE " + a
	}
	if a, ok := actions[tc.OnDelete]; ok {
		def += " ON DELETE " + a
	}
	return def
}

// deparseExpr prints a raw expression as SQL.
func deparseExpr(n *pg.Node) (string, error) {
	res, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}}}}}}}})
	if err != nil {
		return "", fmt.Errorf("deparse constraint expression: %w", err)
	}
	return strings.TrimPrefix(res, "SELECT "), nil
}

// columnRefs are the distinct column names an expression names, in order.
func columnRefs(n *pg.Node) []string {
	var out []string
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if cr, ok := m.Interface().(*pg.ColumnRef); ok {
			if f := cr.Fields[len(cr.Fields)-1].GetString_(); f != nil && !slices.Contains(out, f.Sval) {
				out = append(out, f.Sval)
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	if n != nil {
		walk(n.ProtoReflect())
	}
	return out
}

// nameDrafts gives the unnamed constraints PostgreSQL's names
// (table_col_check, table_check, table_cols_fkey, numbered while taken)
// and refuses a name given twice.
func nameDrafts(table string, ds []conDraft, taken map[string]bool) error {
	for i := range ds {
		d := &ds[i]
		if d.tc.Name != "" {
			if taken[d.tc.Name] {
				return pgerr.New(pgerr.DuplicateObject, "constraint %q for relation %q already exists", d.tc.Name, table)
			}
			taken[d.tc.Name] = true
			continue
		}
		label, base := "check", table
		switch {
		case d.tc.Type == "f":
			label, base = "fkey", table+"_"+strings.Join(d.cols, "_")
		case len(d.cols) == 1:
			base = table + "_" + d.cols[0]
		}
		for n := 0; ; n++ {
			l := label
			if n > 0 {
				l = fmt.Sprintf("%s%d", label, n)
			}
			name := truncIdent(base, len(l)+1) + "_" + l
			if !taken[name] {
				d.tc.Name = name
				taken[name] = true
				break
			}
		}
	}
	return nil
}

// resolveDrafts puts the drafts' columns as field IDs of fields.
func resolveDrafts(ds []conDraft, fields []iceberg.NestedField, table string) ([]pgcatalog.TableConstraint, error) {
	var out []pgcatalog.TableConstraint
	for _, d := range ds {
		tc := d.tc
		tc.Fields = nil
		for _, c := range d.cols {
			i := slices.IndexFunc(fields, func(f iceberg.NestedField) bool { return f.Name == c })
			if i < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", c).WithPosition(d.pos)
			}
			tc.Fields = append(tc.Fields, fields[i].ID)
		}
		out = append(out, tc)
	}
	return out, nil
}

// otherConstraintProps names nt's CHECK and FOREIGN KEY constraints
// beside its keys (named in keyProps) and sets their property in props.
func otherConstraintProps(nt newTable, keyProps, props iceberg.Properties) error {
	if len(nt.others) == 0 {
		return nil
	}
	taken := map[string]bool{}
	if n := keyProps[link.PrimaryKeyNameProperty]; n != "" {
		taken[n] = true
	}
	for _, u := range nt.uniques {
		taken[u.name] = true
	}
	if err := nameDrafts(nt.name, nt.others, taken); err != nil {
		return err
	}
	cs, err := resolveDrafts(nt.others, nt.fields, nt.name)
	if err != nil {
		return err
	}
	props[pgcatalog.PropConstraints] = pgcatalog.EncodeConstraints(cs)
	return nil
}

// bindChecks binds the CHECK drafts over the table's columns, so that a
// constraint that could never be evaluated (a type mismatch, a subquery)
// is refused when it is declared, not at the first write.
func (s *Session) bindChecks(ctx context.Context, ds []conDraft, table string, fields []iceberg.NestedField, colTypes []types.T, q string) error {
	var p *plan.Planner
	for _, d := range ds {
		if d.tc.Type != "c" {
			continue
		}
		if p == nil {
			cat := s.catalog()
			defer cat.release()
			p = plan.New(ctx, cat, s.exprCtx(), q, nil, nil)
		}
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.Name
		}
		if _, err := p.BindCheck(d.tc.Name, d.tc.Expr, table, names, colTypes); err != nil {
			// Positions are in the constraint's deparsed text: point at
			// the constraint instead.
			pe := pgerr.From(err)
			if pe.Code == pgerr.InternalError {
				return err
			}
			cp := *pe
			cp.Position = d.pos
			return &cp
		}
	}
	return nil
}
