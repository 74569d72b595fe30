package metatable

import "testing"

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		name, base, kind string
		ok               bool
	}{
		{"t$snapshots", "t", "snapshots", true},
		{"a$b$files", "a$b", "files", true},
		{"t$foo", "", "", false},
		{"$files", "", "", false},
		{"t$Files", "", "", false}, // names are case-sensitive once quoted
		{"plain", "", "", false},
	} {
		base, kind, ok := Split(c.name)
		if base != c.base || kind != c.kind || ok != c.ok {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", c.name, base, kind, ok, c.base, c.kind, c.ok)
		}
	}
}

func TestLess(t *testing.T) {
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{int32(1), int32(2), true},
		{int64(3), int64(2), false},
		{2.5, 3.0, true},
		{"a", "b", true},
		{[]byte{1}, []byte{1, 0}, true},
		{false, true, true},
		{int32(1), "x", false},
	} {
		if got := less(c.a, c.b); got != c.want {
			t.Errorf("less(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
