package goclients

import (
	"bytes"
	"context"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

// copyBinaryColumns are a column of every type binary COPY carries.
var copyBinaryColumns = []string{
	"b bool", "i2 int2", "i4 int4", "i8 int8", "f4 float4", "f8 float8",
	"n numeric", "n2 numeric(10,2)", "t text", "v varchar(10)", "c char(3)", "by bytea",
	"d date", "tm time", "ts timestamp", "tz timestamptz", "u uuid",
	"j json", "jb jsonb", "ai int4[]", "at text[]", "af float8[]",
}

// copyBinaryRows are the rows, as SQL literals in column order.
var copyBinaryRows = []string{
	`true, 1, 2, 3, 1.5, 2.25, 1.5, 3.1, 'one', 'v', 'ab', '\x00ff', '2024-02-29', '13:14:15.123456',
	 '2024-02-29 13:14:15.5', '2024-02-29 13:14:15.123456+00',
	 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b": 1, "a": "x"}', '{1,NULL,-3}', '{"a b",NULL,""}', '{0.5,-1e300}'`,
	`false, -32768, -2147483648, -9223372036854775808, '-Infinity', 'NaN',
	 -1234567890123456789.000123, -0.01, '', 'héllo', 'x', '', '1969-12-31', '00:00:00',
	 '1900-01-01 00:00:00', '1969-07-20 20:17:40+00', '00000000-0000-0000-0000-000000000000',
	 '[]', '[1, "x", null]', '{}', '{}', '{}'`,
	`NULL, 32767, 2147483647, 9223372036854775807, 'Infinity', -0.0, 12.5, NULL, NULL, NULL, NULL, NULL,
	 'infinity', '24:00:00', '-infinity', 'infinity', NULL, NULL, 'null', NULL, '{x}', NULL`,
	`true, 0, 0, 0, 0, 5e-324, 0, 0, 'tab	and
newline', NULL, NULL, '\x', '0001-01-01', NULL, '2000-01-01 00:00:00', '2000-01-01 00:00:00+00',
	 NULL, '"s"', '3.5', NULL, NULL, NULL`,
}

// TestCopyBinary: COPY TO STDOUT (FORMAT binary) gives PostgreSQL 15's
// bytes for the same table and rows, and those bytes read back by COPY
// FROM (FORMAT binary), in PostgreSQL and in Loam, give the same rows.
func TestCopyBinary(t *testing.T) {
	ctx := context.Background()
	pg := connect(t, pgtest.Database(t)+"&timezone=UTC")
	loam := connect(t, startLoam(t)+"?timezone=UTC")
	cols := strings.Join(copyBinaryColumns, ", ")
	for _, c := range []*pgx.Conn{pg, loam} {
		for _, sql := range []string{"CREATE TABLE cb (" + cols + ")", "CREATE TABLE cb2 (" + cols + ")"} {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		for _, r := range copyBinaryRows {
			if _, err := c.Exec(ctx, "INSERT INTO cb VALUES ("+r+")"); err != nil {
				t.Fatalf("insert (%s): %v", r, err)
			}
		}
	}
	// Per column, then the whole row: a difference names its column.
	for _, col := range copyBinaryColumns {
		name, _, _ := strings.Cut(col, " ")
		sql := "COPY (SELECT " + name + " FROM cb) TO STDOUT (FORMAT binary)"
		if want, got := copyOut(t, pg, sql), copyOut(t, loam, sql); !bytes.Equal(want, got) {
			t.Errorf("%s:\npostgres %s\nloam     %s", col, hex.EncodeToString(want), hex.EncodeToString(got))
		}
	}
	want := copyOut(t, pg, "COPY cb TO STDOUT (FORMAT binary)")
	got := copyOut(t, loam, "COPY cb TO STDOUT (FORMAT binary)")
	if !bytes.Equal(want, got) {
		t.Fatalf("COPY cb TO STDOUT (FORMAT binary):\npostgres %s\nloam     %s", hex.EncodeToString(want), hex.EncodeToString(got))
	}
	// Loam's binary output read back by both, then compared as text.
	for name, c := range map[string]*pgx.Conn{"postgres": pg, "loam": loam} {
		tag, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(got), "COPY cb2 FROM STDIN (FORMAT binary)")
		if err != nil || tag.RowsAffected() != int64(len(copyBinaryRows)) {
			t.Fatalf("%s: COPY cb2 FROM binary: %v %v", name, tag, err)
		}
		orig := copyOut(t, c, "COPY cb TO STDOUT")
		back := copyOut(t, c, "COPY cb2 TO STDOUT")
		if !bytes.Equal(orig, back) {
			t.Errorf("%s: read back from Loam's binary COPY:\n%s\nwant\n%s", name, back, orig)
		}
	}
	// Types no table column holds yet, from a query.
	for _, sql := range []string{
		`COPY (SELECT '1 year 2 mons 3 days 04:05:06.7'::interval, '-1 days -00:00:01'::interval, NULL::interval) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT 'r'::"char", 'abc'::name, 16::oid) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT ARRAY['2024-01-01'::date, NULL], ARRAY[1.50::numeric, -2], ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid],
			ARRAY[true, NULL, false], ARRAY['\x01ff'::bytea], ARRAY['x'::varchar, 'y z'], ARRAY['2024-02-29 13:14:15.5+00'::timestamptz],
			ARRAY['1 day'::interval], ARRAY['{"a": 1}'::jsonb], ARRAY[1::int2], ARRAY[1.5::float4]) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT x FROM (SELECT 1 AS a, 'b'::text AS b, NULL::int8 AS c, 2.5::float8 AS d) x) TO STDOUT (FORMAT binary)`,
		`COPY (SELECT 0.000001::numeric, 10000::numeric, -0.00012300::numeric, 1.50::numeric, 123456789.000::numeric(12,3)) TO STDOUT (FORMAT binary)`,
	} {
		if want, got := copyOut(t, pg, sql), copyOut(t, loam, sql); !bytes.Equal(want, got) {
			t.Errorf("%s:\npostgres %x\nloam     %x", sql, want, got)
		}
	}
	// An empty table is the header and the trailer.
	for _, c := range []*pgx.Conn{pg, loam} {
		if _, err := c.Exec(ctx, "CREATE TABLE cb3 (i int4)"); err != nil {
			t.Fatal(err)
		}
	}
	sql := "COPY cb3 TO STDOUT (FORMAT binary)"
	if want, got := copyOut(t, pg, sql), copyOut(t, loam, sql); !bytes.Equal(want, got) {
		t.Errorf("empty table:\npostgres %x\nloam     %x", want, got)
	}
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return c
}

func copyOut(t *testing.T, c *pgx.Conn, sql string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := c.PgConn().CopyTo(context.Background(), &buf, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return buf.Bytes()
}
