package copyfmt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

var testCols = []Column{{Name: "id", T: types.TInt8, Required: true}, {Name: "s", T: types.TText}, {Name: "ts", T: types.TTimestampTZ}}

func textRows(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "%d\tname %d with\\ttab\t2026-11-%02d 10:00:00.%03d+00\n", i, i, 1+i%28, i%1000)
	}
	return sb.String()
}

func readAll(t *testing.T, r io.Reader, opts Options) ([]int64, error) {
	t.Helper()
	rd := NewReader(r, opts, "t", testCols, time.UTC)
	defer rd.Close()
	var ids []int64
	for {
		rec, err := rd.Next()
		if err != nil {
			return ids, err
		}
		if rec == nil {
			return ids, nil
		}
		a := rec.Column(0).(*array.Int64)
		s := rec.Column(1).(*array.String)
		for i := 0; i < a.Len(); i++ {
			if want := fmt.Sprintf("name %d with\ttab", a.Value(i)); s.Value(i) != want {
				t.Fatalf("row %d: s = %q, want %q", a.Value(i), s.Value(i), want)
			}
			ids = append(ids, a.Value(i))
		}
		rec.Release()
	}
}

func textOpts() Options {
	o := Options{Format: Text}
	o.Defaults(false, false, false, false)
	return o
}

// Rows come out in input order across blocks parsed in parallel, with the
// input fed in small pieces.
func TestTextRowsInOrder(t *testing.T) {
	const n = 300000 // about 15 MB: several blocks
	ids, err := readAll(t, iotest.HalfReader(strings.NewReader(textRows(n)+"\\.\nignored after the end marker\n")), textOpts())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != n {
		t.Fatalf("%d rows, want %d", len(ids), n)
	}
	for i, id := range ids {
		if id != int64(i) {
			t.Fatalf("row %d has id %d", i, id)
		}
	}
}

// An error in a late block names its line in the whole input.
func TestErrorLineAcrossBlocks(t *testing.T) {
	const n = 250000
	lines := strings.SplitAfter(textRows(n), "\n")
	bad := 200001
	lines[bad-1] = "oops\tx\t2026-11-01 00:00:00+00\n"
	_, err := readAll(t, strings.NewReader(strings.Join(lines, "")), textOpts())
	pe := pgerr.From(err)
	if err == nil || pe.Code != pgerr.InvalidTextRepresentation || pe.Where != fmt.Sprintf(`COPY t, line %d, column id: "oops"`, bad) {
		t.Fatalf("got %v (where %q)", err, pe.Where)
	}
}

// A reader error (the client's CopyFail) reaches the caller.
func TestReaderErrorSurfaces(t *testing.T) {
	boom := pgerr.New(pgerr.QueryCanceled, "COPY from stdin failed: boom")
	r := io.MultiReader(strings.NewReader(textRows(1000)), iotest.ErrReader(boom))
	_, err := readAll(t, r, textOpts())
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("got %v, want the reader's error", err)
	}
}

func BenchmarkTextCopy(b *testing.B) {
	data := textRows(200000)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		rd := NewReader(strings.NewReader(data), textOpts(), "t", testCols, time.UTC)
		for {
			rec, err := rd.Next()
			if err != nil {
				b.Fatal(err)
			}
			if rec == nil {
				break
			}
			rec.Release()
		}
		rd.Close()
	}
}

func binaryRows(n int, trailer bool) []byte {
	buf := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	buf = buf[:19]
	for i := 0; i < n; i++ {
		buf = binary.BigEndian.AppendUint16(buf, 3)
		buf = binary.BigEndian.AppendUint32(buf, 8)
		buf = binary.BigEndian.AppendUint64(buf, uint64(i))
		s := fmt.Sprintf("name %d with\ttab", i)
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
		buf = binary.BigEndian.AppendUint32(buf, 0xffffffff) // NULL ts
	}
	if trailer {
		buf = binary.BigEndian.AppendUint16(buf, 0xffff)
	}
	return buf
}

func TestBinaryRowsInOrder(t *testing.T) {
	const n = 300000 // several blocks
	for _, trailer := range []bool{true, false} {
		o := Options{Format: Binary}
		ids, err := readAll(t, iotest.HalfReader(bytes.NewReader(binaryRows(n, trailer))), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != n {
			t.Fatalf("%d rows, want %d", len(ids), n)
		}
		for i, id := range ids {
			if id != int64(i) {
				t.Fatalf("row %d has id %d", i, id)
			}
		}
	}
	// A torn last row is an error, not a short load.
	torn := binaryRows(1000, false)
	_, err := readAll(t, bytes.NewReader(torn[:len(torn)-3]), Options{Format: Binary})
	if pgerr.Code(err) != pgerr.BadCopyFileFormat {
		t.Fatalf("torn row: %v", err)
	}
}

// TestBinaryInfinity: binary COPY's ±infinity timestamps and dates (the
// int64 / int32 extremes) load as the same sentinels, not shifted by the
// epoch difference.
func TestBinaryInfinity(t *testing.T) {
	cols := []Column{{Name: "ts", T: types.TTimestamp}, {Name: "tz", T: types.T{Kind: types.TimestampTZ, Width: 0}}, {Name: "d", T: types.TDate}}
	buf := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")[:19]
	buf = binary.BigEndian.AppendUint16(buf, 3)
	buf = binary.BigEndian.AppendUint32(buf, 8)
	buf = binary.BigEndian.AppendUint64(buf, uint64(math.MaxInt64))
	buf = binary.BigEndian.AppendUint32(buf, 8)
	buf = binary.BigEndian.AppendUint64(buf, 1<<63) // math.MinInt64
	buf = binary.BigEndian.AppendUint32(buf, 4)
	buf = binary.BigEndian.AppendUint32(buf, uint32(math.MaxInt32))
	buf = binary.BigEndian.AppendUint16(buf, 0xffff)
	rd := NewReader(bytes.NewReader(buf), Options{Format: Binary}, "t", cols, time.UTC)
	defer rd.Close()
	rec, err := rd.Next()
	if err != nil || rec == nil {
		t.Fatalf("Next: %v, %v", rec, err)
	}
	defer rec.Release()
	ts, tz := rec.Column(0).(*array.Timestamp).Value(0), rec.Column(1).(*array.Timestamp).Value(0)
	d := rec.Column(2).(*array.Date32).Value(0)
	if int64(ts) != math.MaxInt64 || int64(tz) != math.MinInt64 || int32(d) != math.MaxInt32 {
		t.Errorf("got %d, %d, %d; want the int64/int32 extremes", ts, tz, d)
	}
}

// A float that rounds to zero (1e-400) is 22003, as PostgreSQL's float8in
// says, while zeros and denormals load.
func TestFloatUnderflow(t *testing.T) {
	cols := []Column{{Name: "f", T: types.TFloat8}}
	for _, c := range []struct {
		in   string
		code string
	}{{"0\n-0\n0e-400\n1e-320\n", ""}, {"1e-400\n", pgerr.NumericValueOutOfRange}, {"1e400\n", pgerr.NumericValueOutOfRange}} {
		rd := NewReader(strings.NewReader(c.in), textOpts(), "t", cols, time.UTC)
		var err error
		for {
			var rec arrow.RecordBatch
			if rec, err = rd.Next(); err != nil || rec == nil {
				break
			}
			rec.Release()
		}
		rd.Close()
		if c.code == "" && err != nil || c.code != "" && pgerr.Code(err) != c.code {
			t.Errorf("%q: %v, want SQLSTATE %q", c.in, err, c.code)
		}
	}
}

// A binary field's length is the client's word: one that claims more
// bytes than follow is a format error found without allocating the
// claimed size (it hung the fuzzer zeroing 1.7 GB a row), and one beyond
// PostgreSQL's 1 GB field limit is 54000.
func TestBinaryFieldLengthLies(t *testing.T) {
	header := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")[:19]
	row := func(size uint32) []byte {
		b := binary.BigEndian.AppendUint16(bytes.Clone(header), 3)
		b = binary.BigEndian.AppendUint32(b, size)
		return append(b, "a few bytes"...)
	}
	for _, c := range []struct {
		size uint32
		code string
	}{{0x3fff0000, pgerr.BadCopyFileFormat}, {0x68097461, pgerr.ProgramLimitExceeded}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := readAll(t, bytes.NewReader(row(c.size)), Options{Format: Binary})
		runtime.ReadMemStats(&after)
		if pgerr.Code(err) != c.code {
			t.Errorf("field of %d bytes: %v, want SQLSTATE %s", c.size, err, c.code)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
			t.Errorf("field of %d bytes: allocated %d MB", c.size, grew>>20)
		}
	}
}
