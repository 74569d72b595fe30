package pgcodec

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

var (
	binTS    = time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	binOldTS = time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC)
)

func usSinceEpoch(t time.Time) int64 { return t.UnixMicro() }

// binaryCases pair a Loam datum with the Go value pgtype encodes and decodes
// the same way; pgx is the reference implementation.
var binaryCases = []struct {
	name string
	d    types.Datum
	pg   any // pointer types are scanned into a new value of the same type
}{
	{"bool/true", types.BoolDatum(true), true},
	{"bool/false", types.BoolDatum(false), false},
	{"int2/min", types.Int(types.TInt2, math.MinInt16), int16(math.MinInt16)},
	{"int2", types.Int(types.TInt2, 12345), int16(12345)},
	{"int4/neg", types.Int(types.TInt4, -7), int32(-7)},
	{"int4/max", types.Int(types.TInt4, math.MaxInt32), int32(math.MaxInt32)},
	{"int8", types.Int(types.TInt8, -1<<62), int64(-1 << 62)},
	{"float4", types.Datum{T: types.TFloat4, F: 1.5}, float32(1.5)},
	{"float4/inf", types.Datum{T: types.TFloat4, F: math.Inf(-1)}, float32(math.Inf(-1))},
	{"float8", types.Datum{T: types.TFloat8, F: 3.141592653589793}, 3.141592653589793},
	{"float8/tiny", types.Datum{T: types.TFloat8, F: 5e-324}, 5e-324},
	{"text", types.Datum{T: types.TText, S: "héllo, wörld"}, "héllo, wörld"},
	{"text/empty", types.Datum{T: types.TText, S: ""}, ""},
	{"varchar", types.Datum{T: types.Of(types.Varchar), S: "abc"}, "abc"},
	{"bytea", types.Datum{T: types.TBytea, B: []byte{0, 1, 0xfe, 0xff}}, []byte{0, 1, 0xfe, 0xff}},
	{"date", types.Datum{T: types.TDate, I: 19782}, pgtype.Date{Time: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), Valid: true}},
	{"date/pre-epoch", types.Datum{T: types.TDate, I: -1}, pgtype.Date{Time: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), Valid: true}},
	{"date/pg-epoch", types.Datum{T: types.TDate, I: 10957}, pgtype.Date{Time: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true}},
	{"date/+inf", types.Datum{T: types.TDate, I: math.MaxInt32}, pgtype.Date{InfinityModifier: pgtype.Infinity, Valid: true}},
	{"time", types.Datum{T: types.TTime, I: 13*3600e6 + 14*60e6 + 15e6 + 5}, pgtype.Time{Microseconds: 13*3600e6 + 14*60e6 + 15e6 + 5, Valid: true}},
	{"time/midnight", types.Datum{T: types.TTime, I: 0}, pgtype.Time{Microseconds: 0, Valid: true}},
	{"timestamp", types.Datum{T: types.TTimestamp, I: usSinceEpoch(binTS)}, pgtype.Timestamp{Time: binTS, Valid: true}},
	{"timestamp/old", types.Datum{T: types.TTimestamp, I: usSinceEpoch(binOldTS)}, pgtype.Timestamp{Time: binOldTS, Valid: true}},
	{"timestamptz", types.Datum{T: types.TTimestampTZ, I: usSinceEpoch(binTS)}, pgtype.Timestamptz{Time: binTS, Valid: true}},
	{"timestamptz/-inf", types.Datum{T: types.TTimestampTZ, I: math.MinInt64}, pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}},
	{"uuid", types.Datum{T: types.TUUID, S: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		pgtype.UUID{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true}},
	{"json", types.Datum{T: types.TJSON, S: `{"a": [1, 2]}`}, []byte(`{"a": [1, 2]}`)},
	{"jsonb", types.Datum{T: types.TJSONB, S: `{"a": 1}`}, []byte(`{"a": 1}`)},
}

// encodeOne runs Loam's binary encoder over a one-value Arrow array.
func encodeOne(t *testing.T, d types.Datum) []byte {
	t.Helper()
	arr := buildArray(d.T, []types.Datum{d})
	defer arr.Release()
	var encErr error
	put, err := BinaryEncoder(d.T, arr, &encErr)
	if err != nil {
		t.Fatal(err)
	}
	out := put([]byte{}, 0)
	if encErr != nil {
		t.Fatal(encErr)
	}
	return out
}

func TestBinaryRoundTrip(t *testing.T) {
	m := pgtype.NewMap()
	for _, tc := range binaryCases {
		t.Run(tc.name, func(t *testing.T) {
			oid := tc.d.T.OID()
			// pgx encodes, Loam decodes.
			ref, err := m.Encode(oid, pgtype.BinaryFormatCode, tc.pg, nil)
			if err != nil {
				t.Fatalf("pgtype encode: %v", err)
			}
			got, err := DecodeBinary(tc.d.T, ref, time.UTC)
			if err != nil {
				t.Fatalf("DecodeBinary(%x): %v", ref, err)
			}
			if !reflect.DeepEqual(got, tc.d) && !(len(got.B) == 0 && len(tc.d.B) == 0 && got.T == tc.d.T && got.S == tc.d.S && got.I == tc.d.I) {
				t.Errorf("DecodeBinary(%x) = %+v, want %+v", ref, got, tc.d)
			}
			// Loam encodes: same bytes as pgx, and pgx reads back the value.
			mine := encodeOne(t, tc.d)
			if !bytes.Equal(mine, ref) {
				t.Errorf("encoded %x, pgtype encodes %x", mine, ref)
			}
			dst := reflect.New(reflect.TypeOf(tc.pg))
			if err := m.Scan(oid, pgtype.BinaryFormatCode, mine, dst.Interface()); err != nil {
				t.Fatalf("pgtype scan: %v", err)
			}
			back := dst.Elem().Interface()
			if tz, ok := back.(pgtype.Timestamptz); ok {
				tz.Time = tz.Time.UTC()
				back = tz
			}
			if !reflect.DeepEqual(back, tc.pg) {
				t.Errorf("pgtype read back %#v, want %#v", back, tc.pg)
			}
		})
	}
}

func TestNumericBinary(t *testing.T) {
	m := pgtype.NewMap()
	for _, s := range []string{
		"0", "1", "-1", "1.50", "0.0001", "-0.000123", "123456789012345678901234567890.123456789",
		"10000", "100000000", "0.00000001", "99999999.99990000", "12.3400", "NaN", "Infinity", "-Infinity",
		"1e5", "-2.5E-3",
	} {
		t.Run(s, func(t *testing.T) {
			want := s
			if d, err := types.ParseDec(s); err == nil {
				want = d.String()
			}
			mine, err := appendNumeric(nil, s)
			if err != nil {
				t.Fatal(err)
			}
			var n pgtype.Numeric
			if err := m.Scan(types.OIDNumeric, pgtype.BinaryFormatCode, mine, &n); err != nil {
				t.Fatalf("pgtype scan %x: %v", mine, err)
			}
			txt, err := m.Encode(types.OIDNumeric, pgtype.TextFormatCode, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !numericEqual(string(txt), want) {
				t.Errorf("pgtype reads our %x as %s, want %s", mine, txt, want)
			}
			back, err := numericText(mine)
			if err != nil || back != want {
				t.Errorf("numericText(appendNumeric(%s)) = %q, %v; want %q", s, back, err, want)
			}
			// pgtype's encoding decodes to the same value.
			var ref pgtype.Numeric
			if err := ref.Scan(want); err != nil {
				t.Fatal(err)
			}
			refBin, err := m.Encode(types.OIDNumeric, pgtype.BinaryFormatCode, ref, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := numericText(refBin)
			if err != nil || !numericEqual(got, want) {
				t.Errorf("numericText(pgtype %x) = %q, %v; want %q", refBin, got, err, want)
			}
		})
	}
}

// numericEqual compares decimal texts by value (pgtype does not keep dscale).
func numericEqual(a, b string) bool {
	if a == b {
		return true
	}
	da, err1 := types.ParseDec(a)
	db, err2 := types.ParseDec(b)
	return err1 == nil && err2 == nil && da.Cmp(&db) == 0
}

func TestDecodeBinaryRejects(t *testing.T) {
	cases := []struct {
		name string
		t    types.T
		b    []byte
	}{
		{"int4 short", types.TInt4, []byte{0, 1}},
		{"int8 long", types.TInt8, make([]byte, 9)},
		{"bool empty", types.TBool, []byte{}},
		{"uuid short", types.TUUID, make([]byte, 15)},
		{"jsonb version", types.TJSONB, []byte{2, '{', '}'}},
		{"json invalid", types.TJSON, []byte("{")},
		{"numeric short", types.TNumeric, []byte{0, 1, 0, 0}},
		{"numeric digit", types.TNumeric, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0x27, 0x10}},
		{"numeric sign", types.TNumeric, []byte{0, 0, 0, 0, 0x12, 0x34, 0, 0}},
		{"text bad utf8", types.TText, []byte{0xff}},
		{"time range", types.TTime, []byte{0xff, 0, 0, 0, 0, 0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if d, err := DecodeBinary(tc.t, tc.b, time.UTC); err == nil {
				t.Errorf("DecodeBinary(%x) = %+v, want error", tc.b, d)
			}
		})
	}
}

func TestIntervalEncoding(t *testing.T) {
	b := array.NewMonthDayNanoIntervalBuilder(memory.DefaultAllocator)
	v := arrow.MonthDayNanoInterval{Months: 14, Days: 3, Nanoseconds: (4*3600 + 5*60 + 6) * 1e9}
	b.Append(v)
	arr := b.NewArray()
	var encErr error
	put, err := BinaryEncoder(types.TInterval, arr, &encErr)
	if err != nil {
		t.Fatal(err)
	}
	m := pgtype.NewMap()
	var iv pgtype.Interval
	if err := m.Scan(types.OIDInterval, pgtype.BinaryFormatCode, put(nil, 0), &iv); err != nil {
		t.Fatal(err)
	}
	if want := (pgtype.Interval{Months: 14, Days: 3, Microseconds: (4*3600 + 5*60 + 6) * 1e6, Valid: true}); iv != want {
		t.Errorf("got %+v, want %+v", iv, want)
	}
	tput, err := TextEncoder(types.TInterval, arr, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(tput(nil, 0)), "1 year 2 mons 3 days 04:05:06"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// TestDecodeIntervalBeyondArrow: a binary interval whose time part Arrow's
// nanoseconds cannot hold is refused, not wrapped around.
func TestDecodeIntervalBeyondArrow(t *testing.T) {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, uint64(types.MaxIntervalMicros+1))
	if d, err := DecodeBinary(types.TInterval, b, time.UTC); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("decode = %+v (%v), want 22008", d, err)
	}
	binary.BigEndian.PutUint64(b, uint64(types.MaxIntervalMicros))
	if d, err := DecodeBinary(types.TInterval, b, time.UTC); err != nil || d.I != types.MaxIntervalMicros {
		t.Errorf("decode largest = %+v (%v)", d, err)
	}
}

func TestEncoderRejectsWrongArrowType(t *testing.T) {
	arr := buildArray(types.TInt8, []types.Datum{types.Int(types.TInt8, 1)})
	var encErr error
	if _, err := BinaryEncoder(types.TInt4, arr, &encErr); err == nil {
		t.Error("binary: want error for int8 array as int4")
	}
	if _, err := TextEncoder(types.TText, arr, time.UTC); err == nil {
		t.Error("text: want error for int8 array as text")
	}
}
