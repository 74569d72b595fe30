package jsonb

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// samples cover what jsonb's normal form changes: duplicate keys (the last
// wins), key order (length, then bytes), number text (scale kept, exponent
// expanded, -0), escapes, nesting, scalars at the top.
var samples = []string{
	`null`, `true`, `false`, `0`, `-0`, `-0.0`, `1.0`, `1e2`, `1E-2`, `-1.50e+3`, `123456789012345678901234567890.123456789`,
	`1e-20`, `""`, `"a"`, `"\u00e9\n\t\"\\\/"`, `"\ud83d\ude00"`, `"x\u0001y"`,
	`[]`, `{}`, `[1, "a", null, true, [2, []], {"k": {}}]`,
	`{"b": 1, "a": 2, "aa": 3, "a": 4}`, `{"key": 1, "b": {"z": [1, {"y": 2, "x": 3}]}, "": 0}`,
	` { "llm" : { "model_name" : "gpt-4o" , "tokens" : 12 } , "a" : [ 1 , 2 ] } `,
	`{"a": {"a": 1, "a": {"b": 2}}}`, `[[[[["deep"]]]]]`, `{"é": 1, "z": 2, "ab": 3}`,
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, s := range samples {
		want, err := types.NormalizeJSONB(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		b, err := Encode(nil, s)
		if err != nil {
			t.Fatalf("Encode(%s): %v", s, err)
		}
		if err := Check(b); err != nil {
			t.Errorf("Check(Encode(%s)): %v", s, err)
		}
		if got := string(Value(b).AppendText(nil)); got != want {
			t.Errorf("%s: text %s, want %s", s, got, want)
		}
		// The normal form encodes to the same bytes.
		again, err := Encode(nil, want)
		if err != nil || string(again) != string(b) {
			t.Errorf("%s: normal form encodes differently", s)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, s := range []string{``, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x"`, "\"a\nb\"", `tru`, `[1] x`, `{1: 2}`, `"\u12"`} {
		if _, err := Encode(nil, s); err == nil {
			t.Errorf("Encode(%q) accepted", s)
		}
		if _, err := types.ParseJSON(s); err == nil {
			t.Errorf("types.ParseJSON(%q) accepted: the two parsers must agree", s)
		}
	}
}

func TestLookups(t *testing.T) {
	b, err := Encode(nil, `{"b": [10, 20, {"c": "x"}], "a": null, "longer": 1.50, "a": "last"}`)
	if err != nil {
		t.Fatal(err)
	}
	v := Value(b)
	if v.Kind() != Object || v.Len() != 3 {
		t.Fatalf("kind %d len %d", v.Kind(), v.Len())
	}
	cases := []struct {
		path []string
		want string // "" for missing
	}{
		{[]string{"a"}, `"last"`},
		{[]string{"longer"}, `1.50`},
		{[]string{"b", "1"}, `20`},
		{[]string{"b", "-1", "c"}, `"x"`},
		{[]string{"b", " 2 ", "c"}, `"x"`},
		{[]string{"b", "3"}, ``},
		{[]string{"b", "-4"}, ``},
		{[]string{"b", "x"}, ``},
		{[]string{"zz"}, ``},
		{[]string{"a", "0"}, ``},
		{[]string{""}, ``},
	}
	for _, c := range cases {
		m, ok := v, true
		for _, p := range c.path {
			if m, ok = m.Step(p); !ok {
				break
			}
		}
		got := ""
		if ok {
			got = string(m.AppendText(nil))
		}
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.path, got, c.want)
		}
	}
}

func TestCheckRejectsDamage(t *testing.T) {
	b, _ := Encode(nil, `{"a": [1, "x", {"k": true}], "bb": 2.5}`)
	for i := range b {
		for _, delta := range []byte{1, 0x80, 0xff} {
			d := append([]byte(nil), b...)
			d[i] += delta
			if Check(d) == nil {
				// A changed byte may still be a well-formed value (a key
				// letter, a digit); it must then print and re-encode alike.
				txt := Value(d).AppendText(nil)
				again, err := Encode(nil, string(txt))
				if err != nil || string(again) != string(d) {
					t.Errorf("byte %d +%d: accepted but prints %s", i, delta, txt)
				}
			}
		}
	}
	if Check(b[:len(b)-1]) == nil || Check(append(append([]byte(nil), b...), 0)) == nil {
		t.Error("truncated or extended value accepted")
	}
}

// FuzzCheck feeds arbitrary bytes to the decoder: Check must never panic,
// and what it accepts must print as JSON that encodes back to those bytes.
func FuzzCheck(f *testing.F) {
	for _, s := range samples {
		b, _ := Encode(nil, s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if Check(b) != nil {
			return
		}
		txt := Value(b).AppendText(nil)
		again, err := Encode(nil, string(txt))
		if err != nil || string(again) != string(b) {
			t.Fatalf("accepted %x prints %s which encodes to %x (%v)", b, txt, again, err)
		}
	})
}

// FuzzEncode checks the encoder against the text parser on any input:
// both accept the same texts, and the binary form prints as jsonb does.
func FuzzEncode(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, werr := types.NormalizeJSONB(s)
		b, err := Encode(nil, s)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: Encode error %v, ParseJSON error %v", s, err, werr)
		}
		if err != nil {
			return
		}
		if err := Check(b); err != nil {
			t.Fatalf("%q: Check: %v", s, err)
		}
		if got := string(Value(b).AppendText(nil)); got != want {
			t.Fatalf("%q: prints %s, want %s", s, got, want)
		}
	})
}

func stringArray(vals []string, valid []bool) *array.String {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	bld.AppendValues(vals, valid)
	return bld.NewArray().(*array.String)
}

func TestViewRows(t *testing.T) {
	a := stringArray([]string{`{"a": 1}`, ``, `[1]`, `{"b": [2]}`}, []bool{true, false, true, true})
	sl := array.NewSlice(a, 1, 4).(*array.String)
	v, ok := ViewOf(sl)
	if !ok || v.Bad() || v.Len() != 3 {
		t.Fatalf("view of a slice: ok %v bad %v len %d", ok, v.Bad(), v.Len())
	}
	var got []string
	for i := 0; i < v.Len(); i++ {
		m, ok := v.Row(i)
		if !ok {
			got = append(got, "NULL")
			continue
		}
		got = append(got, string(m.AppendText(nil)))
	}
	if want := "NULL|[1]|{\"b\": [2]}"; strings.Join(got, "|") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, "|"), want)
	}
	// Text that is no JSON, empty text included, leaves the batch to the
	// text path.
	for _, bad := range []string{`{`, ``} {
		v, _ := ViewOf(stringArray([]string{`1`, bad}, nil))
		if !v.Bad() {
			t.Errorf("%q: not reported bad", bad)
		}
	}
}

// TestColumnsDropWithBuffers checks that the binary forms go when their
// Arrow buffers do.
func TestColumnsDropWithBuffers(t *testing.T) {
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(columns)
	}
	before := count()
	for i := 0; i < 50; i++ {
		a := stringArray([]string{fmt.Sprintf(`{"i": %d}`, i)}, nil)
		if v, ok := ViewOf(a); !ok || v.Bad() {
			t.Fatal("no view")
		}
		a.Release()
	}
	if count() < before+50 {
		t.Fatalf("%d columns, want at least %d", count(), before+50)
	}
	for try := 0; try < 100 && count() > before+5; try++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(); n > before+5 {
		t.Errorf("%d columns remain after their buffers went (started with %d)", n, before)
	}
}
