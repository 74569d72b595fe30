package pgcatalog

import (
	"encoding/json"

	"github.com/apache/iceberg-go"

	"github.com/loamdb/loam/types"
)

// PropConstraints is the table property holding a table's CHECK and
// FOREIGN KEY constraints, as JSON (EncodeConstraints). PRIMARY KEY and
// UNIQUE live elsewhere (storage/link's key properties): Loam enforces
// those through its key index. CHECK constraints are enforced by the
// engine on INSERT, UPDATE and COPY; FOREIGN KEY constraints are recorded
// only (pg_constraint shows them, \d lists them) and not enforced.
const PropConstraints = "loam.constraints"

// TableConstraint is a CHECK (Type "c") or FOREIGN KEY (Type "f")
// constraint: its name, its definition as pg_get_constraintdef gives it,
// the columns it is on (Iceberg field IDs), and for CHECK its expression
// as SQL text, which the engine evaluates.
type TableConstraint struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Def    string `json:"def"`
	Fields []int  `json:"fields,omitempty"`
	Expr   string `json:"expr,omitempty"`
	// RefNS and RefTable name a foreign key's referenced table, RefCols
	// its columns.
	RefNS    string   `json:"ref_ns,omitempty"`
	RefTable string   `json:"ref_table,omitempty"`
	RefCols  []string `json:"ref_cols,omitempty"`
	// OnUpdate and OnDelete are a foreign key's actions as pg_constraint
	// codes them: a (NO ACTION), r, c, n, d.
	OnUpdate string `json:"on_update,omitempty"`
	OnDelete string `json:"on_delete,omitempty"`
}

// EncodeConstraints is PropConstraints' value for cs ("" for none).
func EncodeConstraints(cs []TableConstraint) string {
	if len(cs) == 0 {
		return ""
	}
	b, _ := json.Marshal(cs)
	return string(b)
}

// Constraints reads PropConstraints; a constraint one of whose columns
// is gone from schema sc (dropped) is gone, as in PostgreSQL.
func Constraints(props iceberg.Properties, sc *iceberg.Schema) []TableConstraint {
	v := props[PropConstraints]
	if v == "" {
		return nil
	}
	var cs []TableConstraint
	if json.Unmarshal([]byte(v), &cs) != nil {
		return nil
	}
	out := cs[:0]
	for _, c := range cs {
		whole := true
		for _, id := range c.Fields {
			if _, ok := sc.FindFieldByID(id); !ok {
				whole = false
			}
		}
		if whole {
			out = append(out, c)
		}
	}
	return out
}

// tableCon is a CHECK or FOREIGN KEY constraint of a relation, with its
// columns as attnums.
type tableCon struct {
	TableConstraint
	cols []int
}

// tableCons are tbl's CHECK and FOREIGN KEY constraints; columns are the
// table's column names in order.
func tableCons(tbl interface {
	Properties() iceberg.Properties
	Schema() *iceberg.Schema
}, columns []string) []tableCon {
	sc := tbl.Schema()
	var out []tableCon
	for _, c := range Constraints(tbl.Properties(), sc) {
		tc := tableCon{TableConstraint: c}
		for _, id := range c.Fields {
			if f, ok := sc.FindFieldByID(id); ok {
				for i, col := range columns {
					if col == f.Name {
						tc.cols = append(tc.cols, i+1)
					}
				}
			}
		}
		out = append(out, tc)
	}
	return out
}

// conOID is the OID of a CHECK or FOREIGN KEY constraint of r.
func (r relation) conOID(c tableCon) uint32 {
	return ObjectOID(r.ns, "\x00constraint "+r.name+"."+c.Name)
}

// conRows are r's pg_constraint rows for its CHECK and FOREIGN KEY
// constraints. A foreign key's referenced columns are found by name in
// the referenced table's current columns.
func (r relation) conRows(rel *Relation) [][]types.Datum {
	var out [][]types.Datum
	for _, c := range r.cons {
		row := map[string]types.Datum{
			"oid": dOID(r.conOID(c)), "conname": dName(c.Name), "connamespace": dOID(ObjectOID(r.ns, "")),
			"contype": {S: c.Type}, "convalidated": dBool(true), "conrelid": dOID(ObjectOID(r.ns, r.name)),
			"confupdtype": {S: " "}, "confdeltype": {S: " "}, "confmatchtype": {S: " "},
			"conislocal": dBool(true), "conkey": {S: int2Vector(c.cols)},
		}
		if c.Type == "f" {
			row["confrelid"] = dOID(ObjectOID(c.RefNS, c.RefTable))
			row["confupdtype"], row["confdeltype"], row["confmatchtype"] = types.Datum{S: c.OnUpdate}, types.Datum{S: c.OnDelete}, types.Datum{S: "s"}
		}
		out = append(out, rel.row(row))
	}
	return out
}

// conCount is how many constraints of type typ r has: pg_class.relchecks
// for "c"; for "f", whether PostgreSQL's foreign key triggers would make
// relhastriggers true (psql lists foreign keys only then).
func (r relation) conCount(typ string) int {
	n := 0
	for _, c := range r.cons {
		if c.Type == typ {
			n++
		}
	}
	return n
}
