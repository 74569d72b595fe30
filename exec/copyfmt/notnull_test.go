package copyfmt

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// A NOT NULL column's null is reported once the row is parsed, with
// PostgreSQL's detail "Failing row contains (…)." in output form, for
// every format and for text parsed in parallel blocks.
func TestNotNullDetail(t *testing.T) {
	csv := Options{Format: CSV}
	csv.Defaults(false, false, false, false)
	nullRow := binary.BigEndian.AppendUint16([]byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"), 3)
	nullRow = binary.BigEndian.AppendUint32(nullRow, 0xffffffff)
	nullRow = binary.BigEndian.AppendUint32(nullRow, 3)
	nullRow = append(nullRow, "a\tb"...)
	nullRow = binary.BigEndian.AppendUint32(nullRow, 0xffffffff)
	// Many rows before the bad one: it lands in a later parallel block.
	late := textRows(250000) + "\\N\tname x\t2026-11-01 10:00:00.5+02\n"
	cases := []struct {
		name   string
		data   []byte
		opts   Options
		detail string
		where  string
	}{
		{"text", []byte("\\N\tx\\ty\t2026-11-01 10:00:00+02\n"), textOpts(),
			"Failing row contains (null, x\ty, 2026-11-01 08:00:00+00).", "COPY t, line 1: \"\\N\tx\\ty\t2026-11-01 10:00:00+02\""},
		{"text parallel", []byte(late), textOpts(),
			"Failing row contains (null, name x, 2026-11-01 08:00:00.5+00).", "COPY t, line 250001: \"\\N\tname x\t2026-11-01 10:00:00.5+02\""},
		{"csv", []byte("1,a,\n,\"" + strings.Repeat("é", 40) + "\",\n"), csv,
			"Failing row contains (null, " + strings.Repeat("é", 32) + "..., null).", "COPY t, line 2: \",\"" + strings.Repeat("é", 40) + "\",\""},
		{"binary", nullRow, Options{Format: Binary}, "Failing row contains (null, a\tb, null).", "COPY t, line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(t, bytes.NewReader(c.data), c.opts)
			pe := pgerr.From(err)
			if err == nil || pe.Code != pgerr.NotNullViolation || pe.Detail != c.detail || pe.Where != c.where {
				t.Fatalf("got %v\ndetail %q\nwhere %q", err, pe.Detail, pe.Where)
			}
		})
	}
}

// A later field's syntax error in the same row wins over its null, as in
// PostgreSQL, which parses the whole row before checking constraints.
func TestNotNullAfterParse(t *testing.T) {
	_, err := readAll(t, strings.NewReader("\\N\tx\tnot a time\n"), textOpts())
	if pgerr.Code(err) != pgerr.InvalidDatetimeFormat {
		t.Fatalf("got %v, want 22007", err)
	}
}
