package wire

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/loamdb/loam/exec/types"
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
