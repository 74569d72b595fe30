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
			if err := wr.Flush(); err != nil {
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
