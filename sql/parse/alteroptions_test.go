package parse

import (
	"reflect"
	"testing"
)

func TestAlterOptions(t *testing.T) {
	for _, c := range []struct {
		query string
		opts  []Option // Key, Value, Column only
	}{
		{`ALTER TABLE t SET (retention = '30 days' ON ts)`, []Option{{Key: "retention", Value: "30 days", Column: "ts"}}},
		{`ALTER TABLE s.t SET (snapshot_retention = '1 day', retention = '7 days' ON "Ts")`,
			[]Option{{Key: "snapshot_retention", Value: "1 day"}, {Key: "retention", Value: "7 days", Column: "Ts"}}},
		{`ALTER TABLE t RESET (retention)`, nil},
		{`ALTER TABLE t ALTER COLUMN a SET DEFAULT 1`, nil},
	} {
		sts, err := Parse(c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		var got []Option
		if sts[0].Table != nil {
			for _, o := range sts[0].Table.Options {
				got = append(got, Option{Key: o.Key, Value: o.Value, Column: o.Column})
			}
		}
		if !reflect.DeepEqual(got, c.opts) {
			t.Errorf("%s: options %+v, want %+v", c.query, got, c.opts)
		}
		if sts[0].Node.GetAlterTableStmt() == nil {
			t.Errorf("%s: not an ALTER TABLE", c.query)
		}
	}
}
