package copyfmt

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// fuzzCols covers the fast paths of the readers (integers, floats, text,
// timestamps, dates, booleans) and a type parsed through its text input
// function (numeric), with a NOT NULL column.
var fuzzCols = []Column{
	{Name: "id", T: types.TInt8, Required: true},
	{Name: "s", T: types.TText},
	{Name: "f", T: types.TFloat8},
	{Name: "ts", T: types.TTimestampTZ},
	{Name: "n", T: types.TNumeric},
	{Name: "b", T: types.TBool},
	{Name: "d", T: types.TDate},
}

// FuzzReader feeds arbitrary bytes to the text, CSV and binary readers
// (COPY FROM STDIN data is the client's). They must never panic, fail
// only with a PostgreSQL error, keep NOT NULL columns free of NULLs and
// text valid UTF-8, and read the same rows whether the input comes whole
// or a byte at a time. Without -fuzz the seeds run as a unit test.
//
//	go test ./exec/copyfmt/ -run '^$' -fuzz FuzzReader -fuzztime 60s
func FuzzReader(f *testing.F) {
	f.Add(uint8(Text), []byte("1\tone\t1.5\t2026-11-01 10:00:00+00\t3.14\tt\t2026-11-01\n2\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n\\.\n"))
	f.Add(uint8(Text), []byte("1\ttab\\there\\x41\\101\\u00e9\tNaN\tinfinity\t-0.5e3\tyes\t-infinity\n"))
	f.Add(uint8(Text), []byte("1\ttoo few\n"))
	f.Add(uint8(Text), []byte("x\t\t\t\t\t\t\n"))
	f.Add(uint8(CSV), []byte("1,\"quoted, \"\"comma\"\"\",2,2026-11-01 10:00:00+00,1e5,false,2026-02-28\n2,,,,,,\n"))
	f.Add(uint8(CSV), []byte("1,\"multi\nline\",1,,,,\n3,\"unterminated\n"))
	f.Add(uint8(CSV), []byte("\\.\n"))
	f.Add(uint8(Binary), binaryRows(2, true))
	f.Add(uint8(Binary), binaryRows(1, false)[:30])
	f.Add(uint8(Binary), []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, format uint8, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		opts := Options{Format: Format(format % 3)}
		opts.Defaults(false, false, false, false)
		cols := fuzzCols
		if opts.Format == Binary {
			// binaryRows' layout: id, s, and a timestamptz.
			cols = testCols
		}
		whole, errWhole := fuzzRead(t, bytes.NewReader(data), opts, cols)
		bytewise, errBytewise := fuzzRead(t, iotest.OneByteReader(bytes.NewReader(data)), opts, cols)
		if (errWhole == nil) != (errBytewise == nil) || whole != bytewise {
			t.Fatalf("whole input: %v, %q\na byte at a time: %v, %q", errWhole, whole, errBytewise, bytewise)
		}
	})
}

// fuzzRead reads every batch, checks each, and renders the rows.
func fuzzRead(t *testing.T, r interface{ Read([]byte) (int, error) }, opts Options, cols []Column) (string, error) {
	rd := NewReader(r, opts, "t", cols, time.UTC)
	defer rd.Close()
	var out strings.Builder
	for {
		rec, err := rd.Next()
		if err != nil {
			var pe *pgerr.Error
			if !errors.As(err, &pe) || pe.Code == "" || pe.Code == pgerr.InternalError {
				t.Fatalf("not a PostgreSQL error: %v (%T)", err, err)
			}
			return out.String(), err
		}
		if rec == nil {
			return out.String(), nil
		}
		if int(rec.NumCols()) != len(cols) {
			t.Fatalf("%d columns, want %d", rec.NumCols(), len(cols))
		}
		for c, col := range cols {
			a := rec.Column(c)
			if a.Len() != int(rec.NumRows()) {
				t.Fatalf("column %s has %d values for %d rows", col.Name, a.Len(), rec.NumRows())
			}
			if col.Required && a.NullN() > 0 {
				t.Fatalf("NOT NULL column %s has a NULL", col.Name)
			}
			if s, ok := a.(*array.String); ok {
				for i := 0; i < s.Len(); i++ {
					if !utf8.ValidString(s.Value(i)) {
						t.Fatalf("column %s row %d: invalid UTF-8 %q", col.Name, i, s.Value(i))
					}
				}
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			for c := range cols {
				fmt.Fprintf(&out, "%v|", rec.Column(c).GetOneForMarshal(i))
			}
			out.WriteByte('\n')
		}
		rec.Release()
	}
}

// FuzzRoundTrip writes a row with the Writer, in text and CSV with
// various delimiters, quotes and NULL strings, and in binary, and reads it back with the
// Reader in the same options: the values, NULLs and empty strings come
// back as they were.
//
//	go test ./exec/copyfmt/ -run '^$' -fuzz FuzzRoundTrip -fuzztime 60s
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint8(0), "plain", false, int64(1), 1.5, false)
	f.Add(uint8(1), "", false, int64(-7), math.Inf(-1), false)
	f.Add(uint8(1), "", true, int64(0), 0.0, true)
	f.Add(uint8(2), "a,b\"c\nd\r\\.", false, int64(math.MaxInt64), math.NaN(), false)
	f.Add(uint8(3), "NULL", false, int64(math.MinInt64), -0.0, false)
	f.Add(uint8(4), `\.`, false, int64(3), 1e-300, true)
	f.Add(uint8(5), "tab\there\\back\nline é", false, int64(9), 2.5, false)
	f.Add(uint8(6), "'quoted' \\'x\\'", false, int64(9), 2.5, true)
	f.Fuzz(func(t *testing.T, variant uint8, s string, sNull bool, id int64, fl float64, header bool) {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return // PostgreSQL's text values hold neither
		}
		opts := roundTripOpts[int(variant)%len(roundTripOpts)]
		opts.Header = header && opts.Format == CSV
		cols := []Column{{Name: "s", T: types.TText}, {Name: "id", T: types.TInt8}, {Name: "f", T: types.TFloat8}}
		rec := oneRow(cols, s, sNull, id, fl)
		defer rec.Release()
		var buf bytes.Buffer
		wr, err := NewWriter(&buf, opts, []string{"s", "id", "f"}, []types.T{types.TText, types.TInt8, types.TFloat8}, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if err := wr.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := wr.Finish(); err != nil {
			t.Fatal(err)
		}
		rd := NewReader(bytes.NewReader(buf.Bytes()), opts, "t", cols, time.UTC)
		defer rd.Close()
		back, err := rd.Next()
		if err != nil || back == nil {
			t.Fatalf("reading back %q: %v", buf.Bytes(), err)
		}
		defer back.Release()
		if back.NumRows() != 1 {
			t.Fatalf("%q read back as %d rows", buf.Bytes(), back.NumRows())
		}
		bs := back.Column(0).(*array.String)
		if bs.IsNull(0) != sNull || !sNull && bs.Value(0) != s {
			t.Fatalf("%q: s came back as %q (null %v), want %q (null %v)", buf.Bytes(), bs.Value(0), bs.IsNull(0), s, sNull)
		}
		if got := back.Column(1).(*array.Int64).Value(0); got != id {
			t.Fatalf("%q: id came back as %d, want %d", buf.Bytes(), got, id)
		}
		got := back.Column(2).(*array.Float64).Value(0)
		if math.Float64bits(got) != math.Float64bits(fl) && !(math.IsNaN(got) && math.IsNaN(fl)) {
			t.Fatalf("%q: f came back as %v, want %v", buf.Bytes(), got, fl)
		}
		if next, err := rd.Next(); err != nil || next != nil {
			t.Fatalf("%q: more after the row: %v, %v", buf.Bytes(), next, err)
		}
	})
}

// roundTripOpts are the option sets FuzzRoundTrip picks from: those where
// PostgreSQL's formats are unambiguous (text with an empty NULL string would make an empty
// string NULL in PostgreSQL too).
var roundTripOpts = func() []Options {
	var out []Options
	for _, d := range []byte{'\t', ',', '|'} {
		o := Options{Format: Text, Delimiter: d}
		o.Defaults(true, false, false, false)
		out = append(out, o)
	}
	for _, c := range []struct {
		delim, quote, escape byte
		null                 string
	}{
		{',', '"', '"', ""}, {',', '"', '"', "NULL"}, {'|', '\'', '\\', `\N`}, {'\t', '"', '\\', ""},
	} {
		out = append(out, Options{Format: CSV, Delimiter: c.delim, Quote: c.quote, Escape: c.escape, Null: c.null})
	}
	return append(out, Options{Format: Binary})
}()

func oneRow(cols []Column, s string, sNull bool, id int64, fl float64) arrow.RecordBatch {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	if sNull {
		sb.AppendNull()
	} else {
		sb.Append(s)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.Append(id)
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	fb.Append(fl)
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.Arrow(), Nullable: true}
	}
	arrs := []arrow.Array{sb.NewArray(), ib.NewArray(), fb.NewArray()}
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, 1)
}
