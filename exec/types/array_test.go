package types

import "testing"

func TestAppendArrayElem(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"abc", "abc"}, {"", `""`}, {"null", `"null"`}, {"a b", `"a b"`},
		{`a"b`, `"a\"b"`}, {`a\b`, `"a\\b"`}, {"a,b", `"a,b"`}, {"{x}", `"{x}"`}, {"1.5", "1.5"},
	} {
		if got := string(AppendArrayElem(nil, c.in)); got != c.want {
			t.Errorf("%q: got %s want %s", c.in, got, c.want)
		}
	}
	if got := ArrayOf(Int4).OID(); got != 1007 {
		t.Errorf("int4[] oid %d", got)
	}
	if got := ArrayOf(Text).String(); got != "text[]" {
		t.Errorf("text[] name %s", got)
	}
}
