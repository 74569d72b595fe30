package gen

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

func rows(g *Gen, n int) []Row {
	out := make([]Row, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

func TestDeterministic(t *testing.T) {
	a, b := rows(New(42), 5000), rows(New(42), 5000)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("row %d differs for the same seed: %+v vs %+v", i, a[i], b[i])
		}
	}
	c := rows(New(43), 5000)
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43 share %d of 5000 rows", same)
	}
}

func TestNewAtMatchesSequence(t *testing.T) {
	all := rows(New(7), 3*BlockRows+10)
	for _, i := range []uint64{0, 1, BlockRows - 1, BlockRows, BlockRows + 1, 2*BlockRows + 500, 3 * BlockRows} {
		g := NewAt(7, i)
		if g.Index() != i {
			t.Fatalf("NewAt(7, %d).Index() = %d", i, g.Index())
		}
		for j := i; j < uint64(len(all)); j++ {
			if r := g.Next(); r != all[j] {
				t.Fatalf("NewAt(7, %d): row %d = %+v, want %+v", i, j, r, all[j])
			}
		}
	}
}

func TestDistribution(t *testing.T) {
	const n = 100_000
	models := map[string]*Model{}
	for i := range Models {
		models[Models[i].Name] = &Models[i]
	}
	tenants := map[string]int{}
	perModel := map[string]int{}
	lo := End.Add(-Span)
	for _, r := range rows(New(1), n) {
		if r.TS.Before(lo) || !r.TS.Before(End) {
			t.Fatalf("ts %v outside [%v, %v)", r.TS, lo, End)
		}
		if r.TS.Nanosecond()%int(time.Millisecond) != 0 || r.TS.Location() != time.UTC {
			t.Fatalf("ts %v is not whole milliseconds in UTC", r.TS)
		}
		m := models[r.Model]
		if m == nil {
			t.Fatalf("unknown model %q", r.Model)
		}
		if r.PromptTokens < 1 || r.CompletionTokens < 1 || r.LatencyMS < 1 {
			t.Fatalf("non-positive counts: %+v", r)
		}
		want := (float64(r.PromptTokens)*m.PromptPrice + float64(r.CompletionTokens)*m.CompletionPrice) / 1e6
		if math.Abs(r.CostUSD-want) > 1e-9 {
			t.Fatalf("cost %v, want %v for %+v", r.CostUSD, want, r)
		}
		tenants[r.Tenant]++
		perModel[r.Model]++
	}
	if len(tenants) < Tenants*3/4 || len(tenants) > Tenants {
		t.Errorf("%d distinct tenants in %d rows", len(tenants), n)
	}
	top := 0
	for _, c := range tenants {
		top = max(top, c)
	}
	// Zipf(1.1) over 200 ranks: the top tenant has about 1/5 of the calls.
	if share := float64(top) / n; share < 0.08 || share > 0.3 {
		t.Errorf("top tenant share %.3f, want a skewed distribution", share)
	}
	if len(perModel) != len(Models) {
		t.Errorf("%d of %d models used", len(perModel), len(Models))
	}
}

// decoder decodes PostgreSQL wire values with pgx's pgtype codecs.
type decoder struct {
	t  *testing.T
	m  *pgtype.Map
	fc int16
}

func (d decoder) scan(oid uint32, src []byte, dst any) {
	d.t.Helper()
	if err := d.m.Scan(oid, d.fc, src, dst); err != nil {
		d.t.Fatalf("decoding %q as oid %d: %v", src, oid, err)
	}
}

// decodeFields decodes the seven fields of a row with pgtype.
func (d decoder) decodeFields(f [][]byte) Row {
	d.t.Helper()
	if len(f) != len(Columns) {
		d.t.Fatalf("%d fields, want %d", len(f), len(Columns))
	}
	var r Row
	d.scan(pgtype.TimestamptzOID, f[0], &r.TS)
	r.TS = r.TS.UTC()
	d.scan(pgtype.TextOID, f[1], &r.Tenant)
	d.scan(pgtype.TextOID, f[2], &r.Model)
	d.scan(pgtype.Int4OID, f[3], &r.PromptTokens)
	d.scan(pgtype.Int4OID, f[4], &r.CompletionTokens)
	d.scan(pgtype.Float8OID, f[5], &r.CostUSD)
	d.scan(pgtype.Int4OID, f[6], &r.LatencyMS)
	return r
}

func TestBinaryRoundTrip(t *testing.T) {
	want := rows(New(3), 2*BlockRows+3)
	data, err := io.ReadAll(NewReader(3, 0, uint64(len(want)), Binary))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")) {
		t.Fatalf("bad header % x", data[:min(len(data), 19)])
	}
	p := data[19:]
	be := binary.BigEndian
	d := decoder{t, pgtype.NewMap(), pgtype.BinaryFormatCode}
	for i, w := range want {
		if len(p) < 2 {
			t.Fatalf("row %d: truncated", i)
		}
		nf := int(int16(be.Uint16(p)))
		p = p[2:]
		if nf != len(Columns) {
			t.Fatalf("row %d: field count %d", i, nf)
		}
		f := make([][]byte, nf)
		for j := range f {
			if len(p) < 4 {
				t.Fatalf("row %d field %d: truncated", i, j)
			}
			n := int(int32(be.Uint32(p)))
			p = p[4:]
			if n < 0 || n > len(p) {
				t.Fatalf("row %d field %d: length %d", i, j, n)
			}
			f[j], p = p[:n], p[n:]
		}
		if got := d.decodeFields(f); got != w {
			t.Fatalf("row %d: decoded %+v, want %+v", i, got, w)
		}
	}
	if !bytes.Equal(p, []byte{0xff, 0xff}) {
		t.Fatalf("trailer % x, want ff ff", p)
	}
}

func TestTextRoundTrip(t *testing.T) {
	want := rows(New(4), 3000)
	data, err := io.ReadAll(NewReader(4, 0, uint64(len(want)), Text))
	if err != nil {
		t.Fatal(err)
	}
	if n := TextBytes(4, 0, uint64(len(want))); n != int64(len(data)) {
		t.Errorf("TextBytes = %d, reader gave %d bytes", n, len(data))
	}
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("data does not end with a newline")
	}
	lines = lines[:len(lines)-1]
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	d := decoder{t, pgtype.NewMap(), pgtype.TextFormatCode}
	for i, line := range lines {
		var f [][]byte
		for _, s := range strings.Split(line, "\t") {
			f = append(f, []byte(s))
		}
		if got := d.decodeFields(f); got != want[i] {
			t.Fatalf("line %d %q: decoded %+v, want %+v", i, line, got, want[i])
		}
	}
}

func TestCSVRoundTrip(t *testing.T) {
	want := rows(New(5), 2000)
	data, err := io.ReadAll(NewReader(5, 0, uint64(len(want)), CSV))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	d := decoder{t, pgtype.NewMap(), pgtype.TextFormatCode}
	for i, rec := range recs {
		var f [][]byte
		for _, s := range rec {
			f = append(f, []byte(s))
		}
		if got := d.decodeFields(f); got != want[i] {
			t.Fatalf("record %d %q: decoded %+v, want %+v", i, rec, got, want[i])
		}
	}
}

func TestEscaping(t *testing.T) {
	r := Row{TS: End, Tenant: "a\tb\\c\nd\re", Model: `x,"y"`, PromptTokens: 1, CompletionTokens: 2, CostUSD: 0.5, LatencyMS: 3}
	if got, want := string(AppendText(nil, r)), "2026-11-01 00:00:00.000+00\ta\\tb\\\\c\\nd\\re\tx,\"y\"\t1\t2\t0.5\t3\n"; got != want {
		t.Errorf("text:\n got %q\nwant %q", got, want)
	}
	if got, want := string(AppendCSV(nil, r)), "2026-11-01 00:00:00.000+00,\"a\tb\\c\nd\re\",\"x,\"\"y\"\"\",1,2,0.5,3\n"; got != want {
		t.Errorf("csv:\n got %q\nwant %q", got, want)
	}
	r.Tenant = ""
	if got := string(AppendCSV(nil, r)); !strings.Contains(got, `,"",`) {
		t.Errorf("csv of an empty string %q: want it quoted", got)
	}
}

func TestSplitReadersConcatenate(t *testing.T) {
	const n = 5000
	whole, _ := io.ReadAll(NewReader(9, 0, n, Text))
	var parts []byte
	for _, k := range [][2]uint64{{0, 1}, {1, 1700}, {1700, 1700}, {1700, n}} {
		b, err := io.ReadAll(NewReader(9, k[0], k[1], Text))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, b...)
	}
	if !bytes.Equal(whole, parts) {
		t.Fatal("rows read in ranges differ from the rows read at once")
	}
	if b, _ := io.ReadAll(NewReader(9, 0, 0, Binary)); len(b) != 21 {
		t.Errorf("empty binary stream is %d bytes, want 21 (header and trailer)", len(b))
	}
}

func TestArgs(t *testing.T) {
	r := New(1).Next()
	args := AppendArgs(nil, r)
	if len(args) != len(Columns) || args[0] != any(r.TS) || args[6] != any(r.LatencyMS) {
		t.Errorf("AppendArgs = %v", args)
	}
}

func BenchmarkText(b *testing.B) {
	g := New(1)
	var buf []byte
	for b.Loop() {
		buf = AppendText(buf[:0], g.Next())
	}
}

func TestTenantName(t *testing.T) {
	// Rank 0 must be the most frequent tenant of a sample.
	counts := map[string]int{}
	g := New(1)
	for range 20000 {
		counts[g.Next().Tenant]++
	}
	top := ""
	for name, n := range counts {
		if top == "" || n > counts[top] {
			top = name
		}
	}
	if got := TenantName(0); got != top {
		t.Errorf("TenantName(0) = %s, the most frequent tenant is %s", got, top)
	}
}
