package engine

import (
	"context"
	"encoding/json"
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// dropConstraint runs ALTER TABLE … DROP CONSTRAINT [IF EXISTS] name: a
// CHECK or FOREIGN KEY leaves the table's property; a PRIMARY KEY or
// UNIQUE constraint leaves the key index, which the link builds again.
func (s *Session) dropConstraint(ctx context.Context, d *tableDef, ti *plan.TableInfo, c *pg.AlterTableCmd) error {
	var cons []pgcatalog.TableConstraint
	if v := d.prop(pgcatalog.PropConstraints); v != "" {
		if err := json.Unmarshal([]byte(v), &cons); err != nil {
			return fmt.Errorf("table %s: %s: %w", d.name, pgcatalog.PropConstraints, err)
		}
	}
	for i, tc := range cons {
		if tc.Name == c.Name {
			d.props[pgcatalog.PropConstraints] = pgcatalog.EncodeConstraints(append(cons[:i:i], cons[i+1:]...))
			return nil
		}
	}
	for _, k := range link.Constraints(d.base, d.name) {
		if k.Name != c.Name {
			continue
		}
		if k.Primary {
			d.idents = nil
			d.props[link.PrimaryKeyNameProperty] = ""
			d.schema = true
		} else {
			var us []link.KeyConstraint
			if err := json.Unmarshal([]byte(d.prop(link.UniqueProperty)), &us); err != nil {
				return fmt.Errorf("table %s: %s: %w", d.name, link.UniqueProperty, err)
			}
			for i, u := range us {
				if u.Name == c.Name {
					us = append(us[:i:i], us[i+1:]...)
					break
				}
			}
			d.props[link.UniqueProperty] = ""
			if len(us) > 0 {
				d.props[link.UniqueProperty] = link.EncodeUnique(us)
			}
		}
		// The link rebuilds the key index from the new constraints
		// (link.Manager.Alter).
		return nil
	}
	if c.MissingOk {
		s.notice("constraint %q of relation %q does not exist, skipping", c.Name, d.name)
		return nil
	}
	return pgerr.New(pgerr.UndefinedObject, "constraint %q of relation %q does not exist", c.Name, d.name)
}
