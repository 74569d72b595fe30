package copyfmt

import (
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/types"
)

// writes records each Write separately.
type writes []string

func (w *writes) Write(p []byte) (int, error) {
	*w = append(*w, string(p))
	return len(p), nil
}

// Each row, and the CSV header, is a Write of its own (one CopyData message
// each, as PostgreSQL sends them), even where a quoted CSV field holds a
// newline.
func TestWriterRowPerWrite(t *testing.T) {
	in := "1\tone\t2026-11-01 10:00:00+00\n2\ttwo\\nlines\t\\N\n3\tthree\t2026-11-03 10:00:00+00\n"
	csvOpts := Options{Format: CSV, Header: true}
	csvOpts.Defaults(false, false, false, false)
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"text", textOpts(), []string{"1\tone\t2026-11-01 10:00:00+00\n", "2\ttwo\\nlines\t\\N\n", "3\tthree\t2026-11-03 10:00:00+00\n"}},
		{"csv", csvOpts, []string{"id,s,ts\n", "1,one,2026-11-01 10:00:00+00\n", "2,\"two\nlines\",\n", "3,three,2026-11-03 10:00:00+00\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(in), textOpts(), "t", testCols, time.UTC)
			defer rd.Close()
			rec, err := rd.Next()
			if err != nil || rec == nil {
				t.Fatalf("reading the rows: %v", err)
			}
			defer rec.Release()
			var got writes
			names := []string{"id", "s", "ts"}
			ts := []types.T{testCols[0].T, testCols[1].T, testCols[2].T}
			wr, err := NewWriter(&got, tc.opts, names, ts, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if err := wr.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := wr.Finish(); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("writes:\n%q\nwant:\n%q", got, tc.want)
			}
			if wr.Rows() != 3 {
				t.Errorf("Rows() = %d, want 3", wr.Rows())
			}
		})
	}
}

// Binary COPY TO sends the file header with the first row, each further
// row in a Write of its own, and the trailer last, as PostgreSQL does; the
// Reader reads the whole back to the same rows.
func TestBinaryWriter(t *testing.T) {
	in := "1\tone\t2026-11-01 10:00:00+00\n2\ttwo\\nlines\t\\N\n3\tthree\t2026-11-03 10:00:00.5+00\n"
	rd := NewReader(strings.NewReader(in), textOpts(), "t", testCols, time.UTC)
	defer rd.Close()
	rec, err := rd.Next()
	if err != nil || rec == nil {
		t.Fatalf("reading the rows: %v", err)
	}
	defer rec.Release()
	ts := []types.T{testCols[0].T, testCols[1].T, testCols[2].T}
	for _, rows := range []int{3, 0} {
		var got writes
		wr, err := NewWriter(&got, Options{Format: Binary}, []string{"id", "s", "ts"}, ts, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if rows > 0 {
			if err := wr.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := wr.Finish(); err != nil {
			t.Fatal(err)
		}
		if len(got) != max(rows+1, 1) || !strings.HasPrefix(got[0], "PGCOPY\n\xff\r\n\x00") || !strings.HasSuffix(got[len(got)-1], "\xff\xff") {
			t.Fatalf("%d rows: writes %q", rows, got)
		}
		back := NewReader(strings.NewReader(strings.Join(got, "")), Options{Format: Binary}, "t", testCols, time.UTC)
		defer back.Close()
		brec, err := back.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rows == 0 {
			if brec != nil && brec.NumRows() != 0 {
				t.Fatalf("empty COPY read back %d rows", brec.NumRows())
			}
			continue
		}
		defer brec.Release()
		for c := range testCols {
			for i := 0; i < rows; i++ {
				want := types.FormatText(types.DatumAt(ts[c], rec.Column(c), i), time.UTC)
				if got := types.FormatText(types.DatumAt(ts[c], brec.Column(c), i), time.UTC); got != want || brec.Column(c).IsNull(i) != rec.Column(c).IsNull(i) {
					t.Errorf("row %d column %d: %q, want %q", i, c, got, want)
				}
			}
		}
	}
}
