package pgcatalog

import (
	"context"
	"strconv"

	"github.com/loamdb/loam/types"
)

// infoSchemaTables are information_schema's views, in the order pg_class
// lists them.
func infoSchemaTables() []*Relation {
	return []*Relation{
		defTable("information_schema", "schemata", `catalog_name:sql_identifier schema_name:sql_identifier schema_owner:sql_identifier default_character_set_catalog:sql_identifier default_character_set_schema:sql_identifier default_character_set_name:sql_identifier sql_path:character_data`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				nss, err := s.allSchemas(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				// Only the schemas the current role owns (or inherits the
				// owner's privileges) or may use or create in, as in
				// PostgreSQL 15.
				var out [][]types.Datum
				for _, ns := range nss {
					owner := d.schemaOwner(ns)
					ok := systemSchema(ns) || d.rs.hasRole(d.current, owner, true)
					for _, priv := range []string{"USAGE", "CREATE"} {
						if !ok {
							if ok, err = s.src.Allowed(ctx, d.current, priv, schemaObject(ns), false); err != nil {
								return nil, err
							}
						}
					}
					if !ok {
						continue
					}
					out = append(out, rel.row(map[string]types.Datum{"catalog_name": dName(s.src.Database()), "schema_name": dName(ns), "schema_owner": dName(owner)}))
				}
				return out, nil
			}),
		defTable("information_schema", "tables", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier table_type:character_data self_referencing_column_name:sql_identifier reference_generation:character_data user_defined_type_catalog:sql_identifier user_defined_type_schema:sql_identifier user_defined_type_name:sql_identifier is_insertable_into:yes_or_no is_typed:yes_or_no commit_action:character_data`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				var out [][]types.Datum
				for _, r := range rels {
					if r.kind == "S" || !s.relVisible(d, r, anyTablePrivilege...) {
						continue
					}
					typ, ins := "BASE TABLE", "YES"
					if r.kind == "v" {
						typ, ins = "VIEW", "NO"
					}
					out = append(out, rel.row(map[string]types.Datum{"table_catalog": dName(s.src.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name),
						"table_type": dText(typ), "is_insertable_into": dText(ins), "is_typed": dText("NO")}))
				}
				return out, err
			}),
		defTable("information_schema", "sequences", `sequence_catalog:sql_identifier sequence_schema:sql_identifier sequence_name:sql_identifier data_type:character_data numeric_precision:cardinal_number numeric_precision_radix:cardinal_number numeric_scale:cardinal_number start_value:character_data minimum_value:character_data maximum_value:character_data increment:character_data cycle_option:yes_or_no`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				_, ident := columnsByKey(rels)
				var out [][]types.Datum
				for _, r := range rels {
					// An identity column's sequence is not listed, as in
					// PostgreSQL.
					q := r.seq
					if q == nil || ident[r.ns+"."+q.OwnedBy] != "" || !s.relVisible(d, r, anySeqPrivilege...) {
						continue
					}
					bits := map[types.Kind]int64{types.Int2: 16, types.Int4: 32, types.Int8: 64}[q.Type.Kind]
					out = append(out, rel.row(map[string]types.Datum{"sequence_catalog": dName(s.src.Database()), "sequence_schema": dName(r.ns),
						"sequence_name": dName(r.name), "data_type": dText(q.Type.String()), "numeric_precision": dInt(bits),
						"numeric_precision_radix": dInt(2), "numeric_scale": dInt(0), "start_value": dText(strconv.FormatInt(q.Start, 10)),
						"minimum_value": dText(strconv.FormatInt(q.Min, 10)), "maximum_value": dText(strconv.FormatInt(q.Max, 10)),
						"increment": dText(strconv.FormatInt(q.Increment, 10)), "cycle_option": dText(yesNo(q.Cycle))}))
				}
				return out, err
			}),
		defTable("information_schema", "views", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier view_definition:character_data check_option:character_data is_updatable:yes_or_no is_insertable_into:yes_or_no is_trigger_updatable:yes_or_no is_trigger_deletable:yes_or_no is_trigger_insertable_into:yes_or_no`,
			viewRows),
		defTable("information_schema", "columns", `table_catalog:sql_identifier table_schema:sql_identifier table_name:sql_identifier column_name:sql_identifier ordinal_position:cardinal_number column_default:character_data is_nullable:yes_or_no data_type:character_data character_maximum_length:cardinal_number character_octet_length:cardinal_number numeric_precision:cardinal_number numeric_precision_radix:cardinal_number numeric_scale:cardinal_number datetime_precision:cardinal_number interval_type:character_data interval_precision:cardinal_number character_set_catalog:sql_identifier character_set_schema:sql_identifier character_set_name:sql_identifier collation_catalog:sql_identifier collation_schema:sql_identifier collation_name:sql_identifier domain_catalog:sql_identifier domain_schema:sql_identifier domain_name:sql_identifier udt_catalog:sql_identifier udt_schema:sql_identifier udt_name:sql_identifier scope_catalog:sql_identifier scope_schema:sql_identifier scope_name:sql_identifier maximum_cardinality:cardinal_number dtd_identifier:sql_identifier is_self_referencing:yes_or_no is_identity:yes_or_no identity_generation:character_data identity_start:character_data identity_increment:character_data identity_maximum:character_data identity_minimum:character_data identity_cycle:yes_or_no is_generated:character_data generation_expression:character_data is_updatable:yes_or_no`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				rels, err := s.relations(ctx)
				if err != nil {
					return nil, err
				}
				d, err := s.privData(ctx)
				if err != nil {
					return nil, err
				}
				owners := sequenceOwners(rels)
				var out [][]types.Datum
				for _, r := range rels {
					if !s.relVisible(d, r, anyColumnPrivilege...) {
						continue
					}
					for i, c := range r.cols {
						set := map[string]types.Datum{"table_catalog": dName(s.src.Database()), "table_schema": dName(r.ns), "table_name": dName(r.name),
							"column_name": dName(c.name), "ordinal_position": dInt(int64(i + 1)), "is_nullable": dText(yesNo(r.notnull == nil || !r.notnull[i])),
							"data_type": dText(dataType(c.t)), "udt_catalog": dName(s.src.Database()), "udt_schema": dName("pg_catalog"),
							"udt_name": dName(udtName(c.t)), "dtd_identifier": dName(itoa(i + 1)), "is_self_referencing": dText("NO"),
							"is_identity": dText("NO"), "identity_cycle": dText("NO"), "is_generated": dText("NEVER"), "is_updatable": dText("YES")}
						if r.hasDefault(i) {
							set["column_default"] = dText(DefaultText(r.defaults[i], false))
						}
						if id := r.identityOf(i); id != "" {
							set["is_identity"], set["identity_generation"] = dText("YES"), dText(map[string]string{"a": "ALWAYS", "d": "BY DEFAULT"}[id])
							if q := owners[r.ns+"."+r.name+"."+c.name]; q != nil {
								set["identity_start"], set["identity_increment"] = dText(itoa(int(q.Start))), dText(itoa(int(q.Increment)))
								set["identity_maximum"], set["identity_minimum"] = dText(strconv.FormatInt(q.Max, 10)), dText(strconv.FormatInt(q.Min, 10))
								set["identity_cycle"] = dText(yesNo(q.Cycle))
							}
						}
						switch c.t.Kind {
						case types.Varchar, types.Char:
							if c.t.Width >= 0 {
								set["character_maximum_length"] = dInt(int64(c.t.Width))
								set["character_octet_length"] = dInt(int64(c.t.Width) * 4)
							}
						case types.Text:
							set["character_octet_length"] = dInt(1073741824)
						case types.Int2, types.Int4, types.Int8:
							set["numeric_precision"] = dInt(int64(map[types.Kind]int{types.Int2: 16, types.Int4: 32, types.Int8: 64}[c.t.Kind]))
							set["numeric_precision_radix"], set["numeric_scale"] = dInt(2), dInt(0)
						case types.Float4, types.Float8:
							set["numeric_precision"] = dInt(int64(map[types.Kind]int{types.Float4: 24, types.Float8: 53}[c.t.Kind]))
							set["numeric_precision_radix"] = dInt(2)
						case types.Numeric:
							set["numeric_precision_radix"] = dInt(10)
							if c.t.Width >= 0 {
								set["numeric_precision"], set["numeric_scale"] = dInt(int64(c.t.Width)), dInt(int64(c.t.Scale))
							}
						case types.Date:
							set["datetime_precision"] = dInt(0)
						case types.Time, types.Timestamp, types.TimestampTZ, types.Interval:
							p := int64(6)
							if c.t.Width >= 0 {
								p = int64(c.t.Width)
							}
							set["datetime_precision"] = dInt(p)
						}
						out = append(out, rel.row(set))
					}
				}
				return out, err
			}),
	}
}
