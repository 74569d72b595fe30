package engine

import (
	"context"
	"encoding/json"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// ALTER TABLE … ADD CONSTRAINT CHECK and FOREIGN KEY, as pg_dump emits
// them after a table's data (PRIMARY KEY and UNIQUE are addkey.go's):
// CHECK is checked against the rows there and enforced from then on;
// FOREIGN KEY is recorded, not enforced.

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
