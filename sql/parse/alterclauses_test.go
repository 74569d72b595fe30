package parse

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestAlterClauses: SET PARTITIONED BY / SET SORTED BY of an ALTER TABLE
// are split off and stand as SET WITHOUT OIDS actions for pg_query, in
// place, with the statement's other actions and positions intact.
func TestAlterClauses(t *testing.T) {
	for _, c := range []struct {
		q          string
		part, sort int  // entries
		setP, setS bool // clauses present
		actions    []pg.AlterTableType
	}{
		{`ALTER TABLE t SET PARTITIONED BY (month(ts), bucket(4, k))`, 2, 0, true, false, []pg.AlterTableType{pg.AlterTableType_AT_DropOids}},
		{`ALTER TABLE s.t SET SORTED BY (a DESC, b), ADD COLUMN c int`, 0, 2, false, true,
			[]pg.AlterTableType{pg.AlterTableType_AT_DropOids, pg.AlterTableType_AT_AddColumn}},
		{`ALTER TABLE IF EXISTS t ADD COLUMN x int, SET PARTITIONED BY (), SET SORTED BY ()`, 0, 0, true, true,
			[]pg.AlterTableType{pg.AlterTableType_AT_AddColumn, pg.AlterTableType_AT_DropOids, pg.AlterTableType_AT_DropOids}},
		{`ALTER TABLE t ALTER COLUMN c SET DEFAULT 'SET SORTED BY (x)'`, 0, 0, false, false,
			[]pg.AlterTableType{pg.AlterTableType_AT_ColumnDefault}},
	} {
		t.Run(c.q, func(t *testing.T) {
			stmts, err := Parse(c.q)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			st := stmts[0]
			at := st.Node.GetAlterTableStmt()
			if at == nil {
				t.Fatalf("not an ALTER TABLE: %v", st.Node)
			}
			var got []pg.AlterTableType
			for _, n := range at.Cmds {
				got = append(got, n.GetAlterTableCmd().Subtype)
			}
			if len(got) != len(c.actions) {
				t.Fatalf("actions %v, want %v", got, c.actions)
			}
			for i := range got {
				if got[i] != c.actions[i] {
					t.Errorf("actions %v, want %v", got, c.actions)
				}
			}
			if st.Text != c.q {
				t.Errorf("Text %q", st.Text)
			}
			tc := st.Table
			if !c.setP && !c.setS {
				if tc != nil {
					t.Errorf("Table %+v, want nil", tc)
				}
				return
			}
			if tc == nil || tc.SetPartition != c.setP || tc.SetSort != c.setS || len(tc.Partition) != c.part || len(tc.Sort) != c.sort {
				t.Errorf("Table %+v", tc)
			}
		})
	}
	if _, err := Parse(`ALTER TABLE t SET SORTED BY(a)`); err != nil {
		t.Errorf("SET SORTED BY(a) without a space: %v", err)
	}
	// With SET (…) options in the same statement, both are kept.
	stmts, err := Parse(`ALTER TABLE t SET (retention = '1 day' ON ts), SET SORTED BY (ts)`)
	if err != nil {
		t.Fatal(err)
	}
	if tc := stmts[0].Table; tc == nil || len(tc.Options) != 1 || tc.Options[0].Column != "ts" || !tc.SetSort || len(tc.Sort) != 1 {
		t.Errorf("options and SORTED BY together: %+v", tc)
	}
}
