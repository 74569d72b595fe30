package pgcodec

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Arrays (carried as text) encode in binary exactly as pgx encodes them.
func TestArrayBinary(t *testing.T) {
	m := pgtype.NewMap()
	s := func(v string) *string { return &v }
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		elem types.Kind
		text string
		pg   any
	}{
		{types.Int4, "{1,-2,3}", []int32{1, -2, 3}},
		{types.Int8, "{}", []int64{}},
		{types.Float8, "{0.5,NaN}", nil},
		{types.Text, `{"a b",NULL,"",x}`, []*string{s("a b"), nil, s(""), s("x")}},
		{types.Bool, "{t,f}", []bool{true, false}},
		{types.TimestampTZ, `{"2024-01-02 03:04:05+00"}`, []time.Time{ts}},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			at := types.ArrayOf(tc.elem)
			mine := encodeOne(t, types.Datum{T: at, S: tc.text})
			if tc.pg == nil {
				var back []float64
				if err := m.Scan(at.OID(), pgtype.BinaryFormatCode, mine, &back); err != nil || len(back) != 2 || back[0] != 0.5 || back[1] == back[1] {
					t.Fatalf("scan %x: %v %v", mine, back, err)
				}
				return
			}
			ref, err := m.Encode(at.OID(), pgtype.BinaryFormatCode, tc.pg, nil)
			if err != nil {
				t.Fatalf("pgtype encode: %v", err)
			}
			// PostgreSQL sends an empty array with no dimensions; pgx
			// writes one of length 0.
			if !bytes.Equal(mine, ref) && tc.text != "{}" {
				t.Errorf("encoded %x, pgtype encodes %x", mine, ref)
			}
			dst := reflect.New(reflect.TypeOf(tc.pg))
			if err := m.Scan(at.OID(), pgtype.BinaryFormatCode, mine, dst.Interface()); err != nil {
				t.Fatalf("pgtype scan: %v", err)
			}
			back := dst.Elem().Interface()
			if tt, ok := back.([]time.Time); ok {
				for i := range tt {
					tt[i] = tt[i].UTC()
				}
			}
			if !reflect.DeepEqual(back, tc.pg) {
				t.Errorf("read back %#v, want %#v", back, tc.pg)
			}
		})
	}
}

// TestDecodeArrayBinary: array parameters in pgx's binary format (what it
// sends for []int32, []string, … bound to an array parameter) decode to
// Loam's array text, with NULLs and quoting as array_out writes them.
func TestDecodeArrayBinary(t *testing.T) {
	m := pgtype.NewMap()
	cases := []struct {
		t    types.T
		v    any
		want string
	}{
		{types.ArrayOf(types.Int4), []int32{1, -2, 3}, "{1,-2,3}"},
		{types.ArrayOf(types.Int8), []any{int64(1), nil}, "{1,NULL}"},
		{types.ArrayOf(types.Text), []string{"a", "b c", "", "NULL", `q"\`}, `{a,"b c","","NULL","q\"\\"}`},
		{types.ArrayOf(types.Float8), []float64{}, "{}"},
		{types.ArrayOf(types.Bool), []bool{true, false}, "{t,f}"},
	}
	for _, c := range cases {
		b, err := m.Encode(c.t.OID(), pgtype.BinaryFormatCode, c.v, nil)
		if err != nil {
			t.Fatalf("encode %v: %v", c.v, err)
		}
		d, err := DecodeBinary(c.t, b, time.UTC)
		if err != nil || d.S != c.want {
			t.Errorf("%s %v: %q (%v), want %q", c.t, c.v, d.S, err, c.want)
		}
	}
	// An int8 array where int4 was expected: 42804, as array_recv says.
	b, _ := m.Encode(types.ArrayOf(types.Int8).OID(), pgtype.BinaryFormatCode, []int64{1}, nil)
	if _, err := DecodeBinary(types.ArrayOf(types.Int4), b, time.UTC); pgerr.Code(err) != pgerr.DatatypeMismatch {
		t.Errorf("wrong element type: %v", err)
	}
	if _, err := DecodeBinary(types.ArrayOf(types.Int4), b[:10], time.UTC); pgerr.Code(err) != pgerr.InvalidBinaryRepresentation {
		t.Errorf("short: %v", err)
	}
}
