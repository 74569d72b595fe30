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

func TestSplitArrayText(t *testing.T) {
	in := []string{"a", "", "NULL", "x y", `q"t`, `b\s`, "{br}", "w,v"}
	var buf []byte
	buf = append(buf, '{')
	for i, s := range in {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendArrayElem(buf, s)
	}
	buf = append(buf, ",NULL}"...)
	elems, null, err := SplitArrayText(string(buf))
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != len(in)+1 || !null[len(in)] {
		t.Fatalf("%s: %q %v", buf, elems, null)
	}
	for i, s := range in {
		if elems[i] != s || null[i] {
			t.Errorf("%d: got %q null=%v, want %q", i, elems[i], null[i], s)
		}
	}
	if e, _, err := SplitArrayText("{}"); err != nil || len(e) != 0 {
		t.Errorf("{}: %v %v", e, err)
	}
	if _, _, err := SplitArrayText(`{"a`); err == nil {
		t.Errorf("unterminated quote accepted")
	}
}
