package types

import (
	"reflect"
	"testing"
)

func TestRecordText(t *testing.T) {
	for _, c := range []struct {
		vals []string
		null []bool
		text string
	}{
		{[]string{"5", "1"}, []bool{false, false}, "(5,1)"},
		{[]string{"a b", "", "x"}, []bool{false, true, false}, `("a b",,x)`},
		{[]string{"", `q"\`, "(,)"}, []bool{false, false, false}, `("","q""\\","(,)")`},
		{[]string{""}, []bool{true}, "()"},
	} {
		got := FormatRecord(c.vals, c.null)
		if got != c.text {
			t.Errorf("FormatRecord(%q) = %s, want %s", c.vals, got, c.text)
		}
		vals, null, err := SplitRecordText(got)
		if err != nil {
			t.Fatal(err)
		}
		for i := range null {
			if null[i] {
				vals[i] = ""
			}
		}
		if !reflect.DeepEqual(vals, c.vals) || !reflect.DeepEqual(null, c.null) {
			t.Errorf("SplitRecordText(%s) = %q %v, want %q %v", got, vals, null, c.vals, c.null)
		}
	}
	if _, _, err := SplitRecordText("(1,2"); err == nil {
		t.Error("SplitRecordText accepted a record with no closing parenthesis")
	}
}

func TestRecordOf(t *testing.T) {
	a := RecordOf(Field{"x", TInt2}, Field{"n", TInt4})
	b := RecordOf(Field{"x", TInt2}, Field{"n", TInt4})
	c := RecordOf(Field{"x", TText}, Field{"n", TInt4})
	if a != b || a == c {
		t.Errorf("RecordOf: equal fields give %v and %v; other fields %v", a, b, c)
	}
	if f := RecordFields(c); len(f) != 2 || f[0].T != TText || f[1].Name != "n" {
		t.Errorf("RecordFields = %v", f)
	}
	if a.OID() != OIDRecord || a.String() != "record" || a.Typmod() != -1 {
		t.Errorf("record type reports OID %d, name %s, typmod %d", a.OID(), a.String(), a.Typmod())
	}
}
