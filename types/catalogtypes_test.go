package types

import (
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// The catalog types: name, oid, "char" (PostgreSQL's input and output).
func TestCatalogTypesText(t *testing.T) {
	cases := []struct {
		t       T
		in, out string
		err     string
	}{
		{TName, "llm_calls", "llm_calls", ""},
		{TName, strings.Repeat("x", 70), strings.Repeat("x", 63), ""},
		{TOID, "16384", "16384", ""},
		{TOID, "-1", "4294967295", ""},
		{TOID, "4294967295", "4294967295", ""},
		{TOID, "4294967296", "", "22003"},
		{TOID, "x", "", "22P02"},
		{TQChar, "rx", "r", ""},
		{TQChar, "", "", ""},
	}
	for _, c := range cases {
		d, err := ParseText(c.t, c.in, nil)
		if c.err != "" {
			if err == nil || pgerr.From(err).Code != c.err {
				t.Errorf("%s %q: want error %s, got %v", c.t, c.in, c.err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.t, c.in, err)
			continue
		}
		if got := FormatText(d, nil); got != c.out {
			t.Errorf("%s %q = %q, want %q", c.t, c.in, got, c.out)
		}
	}
	if TName.OID() != 19 || TOID.OID() != 26 || TQChar.OID() != 18 || Of(Regclass).OID() != 2205 || Of(Regtype).OID() != 2206 {
		t.Errorf("catalog type OIDs: %d %d %d", TName.OID(), TOID.OID(), TQChar.OID())
	}
	if got := TQChar.String(); got != `"char"` {
		t.Errorf(`"char" prints as %s`, got)
	}
	// oid = integer compares as oid, as PostgreSQL's implicit int4 -> oid.
	if c, ok := Common(TOID, TInt4); !ok || c.Kind != OID {
		t.Errorf("Common(oid, int4) = %v %v", c, ok)
	}
	if c, ok := Common(Of(Regclass), TOID); !ok || c.Kind != OID {
		t.Errorf("Common(regclass, oid) = %v %v", c, ok)
	}
}
