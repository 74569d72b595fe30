package expr

import (
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Expected values are PostgreSQL 15's.
func TestStringFuncs(t *testing.T) {
	runCases(t, []fcase{
		ok("length", "5", lit("héllo")),
		ok("char_length", "0", lit("")),
		ok("octet_length", "6", lit("héllo")),
		ok("length", "NULL", null()),
		ok("lower", "abc", lit("ABC")),
		ok("upper", "ABC", lit("abc")),
		ok("substr", "ello", lit("hello"), i4(2)),
		ok("substr", "ell", lit("hello"), i4(2), i4(3)),
		ok("substr", "he", lit("hello"), i4(0), i4(3)),
		ok("substr", "h", lit("hello"), i4(-3), i4(5)),
		ok("substr", "", lit("hello"), i4(9)),
		fails("substr", "22011", lit("hello"), i4(2), i4(-1)),
		ok("substring", "éll", lit("héllo"), i4(2), i4(3)),
		ok("strpos", "3", lit("hello"), lit("l")),
		ok("strpos", "3", lit("héllo"), lit("l")),
		ok("strpos", "0", lit("hello"), lit("z")),
		ok("strpos", "1", lit("hello"), lit("")),
		ok("position", "3", lit("hello"), lit("l")),
		ok("replace", "aXXcaXXc", lit("abcabc"), lit("b"), lit("XX")),
		ok("replace", "abc", lit("abc"), lit(""), lit("x")),
		ok("split_part", "b", lit("a,b,c"), lit(","), i4(2)),
		ok("split_part", "c", lit("a,b,c"), lit(","), i4(-1)),
		ok("split_part", "", lit("a,b,c"), lit(","), i4(5)),
		ok("split_part", "", lit("a,b,c"), lit(","), i4(-4)),
		ok("split_part", "abc", lit("abc"), lit(""), i4(1)),
		ok("split_part", "", lit("abc"), lit(""), i4(2)),
		fails("split_part", pgerr.InvalidParameterValue, lit("a,b"), lit(","), i4(0)),
		ok("concat", "a1t2.5", lit("a"), i4(1), null(), types.BoolDatum(true), num("2.5")),
		ok("concat", "", null()),
		ok("concat_ws", "a,1,f", lit(","), lit("a"), null(), i4(1), types.BoolDatum(false)),
		ok("concat_ws", "NULL", null(), lit("a")),
		ok("btrim", "x", lit("  x  ")),
		ok("btrim", "a", lit("xyaxy"), lit("xy")),
		ok("ltrim", "a  ", lit("  a  ")),
		ok("rtrim", "ab", lit("abzz"), lit("z")),
		ok("left", "he", lit("hello"), i4(2)),
		ok("left", "hel", lit("hello"), i4(-2)),
		ok("right", "lo", lit("hello"), i4(2)),
		ok("right", "llo", lit("hello"), i4(-2)),
		ok("left", "hi", lit("hi"), i4(10)),
		ok("lpad", "   hi", lit("hi"), i4(5)),
		ok("lpad", "xyxhi", lit("hi"), i4(5), lit("xy")),
		ok("rpad", "hixyx", lit("hi"), i4(5), lit("xy")),
		ok("lpad", "he", lit("hello"), i4(2)),
		ok("rpad", "", lit("hi"), i4(-1)),
		ok("lpad", "hi", lit("hi"), i4(5), lit("")),
		ok("repeat", "ababab", lit("ab"), i4(3)),
		ok("repeat", "", lit("ab"), i4(-1)),
		ok("reverse", "cba", lit("abc")),
		ok("initcap", "Hello World Foo-Bar 1st", lit("hello wORLD foo-bar 1st")),
		ok("md5", "900150983cd24fb0d6963f7d28e17f72", lit("abc")),
		ok("starts_with", "t", lit("hello"), lit("he")),
		ok("starts_with", "f", lit("hello"), lit("lo")),
		ok("chr", "A", i4(65)),
		ok("chr", "é", i4(233)),
		fails("chr", pgerr.ProgramLimitExceeded, i4(0)),
		fails("chr", pgerr.InvalidParameterValue, i4(-1)),
		ok("ascii", "65", lit("A")),
		ok("ascii", "0", lit("")),
		ok("ascii", "233", lit("é")),
		ok("translate", "a2x5", lit("12345"), lit("143"), lit("ax")),
		ok("to_hex", "ff", i4(255)),
		ok("to_hex", "ffffffff", i4(-1)),
		ok("to_hex", "ffffffffffffffff", i8(-1)),
		ok("format", `Hello world, "Foo bar", 'O''Reilly', NULL`, lit("Hello %s, %I, %L, %L"), lit("world"), lit("Foo bar"), lit("O'Reilly"), null()),
		ok("format", "b a", lit("%2$s %1$s"), lit("a"), lit("b")),
		ok("format", "100%", lit("100%%")),
		ok("format", `"select"`, lit("%I"), lit("select")),
		ok("format", `E'a\\b'`, lit("%L"), lit(`a\b`)),
		fails("format", pgerr.InvalidParameterValue, lit("%s %s"), lit("a")),
		fails("format", pgerr.InvalidParameterValue, lit("%d"), i4(1)),
		fails("length", pgerr.UndefinedFunction, i4(5)),
		fails("upper", pgerr.UndefinedFunction, i4(1)),
		fails("concat", pgerr.UndefinedFunction),
	})
}

func TestTextCat(t *testing.T) {
	e := TextCat(&Const{D: types.TextDatum("v")}, &Const{D: types.BoolDatum(true)})
	d, err := e.(*Func).Fn(&Ctx{}, []types.Datum{types.TextDatum("v"), types.BoolDatum(true)})
	if err != nil || d.S != "vtrue" {
		t.Errorf("'v' || true = %q, %v; want vtrue", d.S, err)
	}
}

func TestRegexFuncs(t *testing.T) {
	runCases(t, []fcase{
		ok("regexp_replace", "fooXbaz", lit("foobarbaz"), lit("b.."), lit("X")),
		ok("regexp_replace", "fooXX", lit("foobarbaz"), lit("b.."), lit("X"), lit("g")),
		ok("regexp_replace", "HeLLo", lit("Hello"), lit("l"), lit("L"), lit("gi")),
		ok("regexp_replace", "a[b]c", lit("abc"), lit("(b)"), lit(`[\1]`)),
		ok("regexp_replace", "abbc", lit("abc"), lit("b"), lit(`\&\&`)),
		ok("regexp_replace", "a#b#", lit("a1b22"), lit(`\d+`), lit("#"), lit("g")),
		fails("regexp_replace", pgerr.InvalidParameterValue, lit("abc"), lit("b"), lit("x"), lit("z")),
		fails("regexp_replace", pgerr.InvalidRegularExpression, lit("abc"), lit("("), lit("x")),
		ok("substring", "oob", lit("foobar"), lit("o.b")),
		ok("substring", "o", lit("foobar"), lit("o(.)b")),
		ok("substring", "NULL", lit("foobar"), lit("x")),
		ok("regexp_like", "t", lit("abc"), lit("B"), lit("i")),
		ok("regexp_count", "2", lit("banana"), lit("an")),
		ok("similar_to_escape", `^(?:a.*\.c)$`, lit("a%.c")),
	})
	for _, c := range []struct {
		s, p   string
		fold   bool
		negate bool
		want   bool
	}{
		{"abc", "b", false, false, true},
		{"abc", "^b", false, false, false},
		{"ABC", "b", true, false, true},
		{"abc", "b", false, true, false},
		{"foo bar", `\mbar\M`, false, false, true},
		{"a\nb", "a.b", false, false, true},
		{"a.c", `a\.c`, false, false, true},
	} {
		m, err := NewRegexMatch(&Const{D: types.TextDatum(c.s)}, &Const{D: types.TextDatum(c.p)}, c.fold, c.negate)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.re.MatchString(c.s) != c.negate; got != c.want {
			t.Errorf("%q ~ %q (fold %v, negate %v) = %v", c.s, c.p, c.fold, c.negate, got)
		}
	}
	if _, err := NewRegexMatch(&Const{D: types.TextDatum("a")}, &Const{D: types.TextDatum("(")}, false, false); pgerr.Code(err) != pgerr.InvalidRegularExpression ||
		err.Error() != "invalid regular expression: parentheses () not balanced" {
		t.Errorf("bad pattern: %v", err)
	}
	for _, c := range []struct{ pat, want string }{
		{"a%", "^(?:a.*)$"},
		{"a_c", "^(?:a.c)$"},
		{`a\_c`, `^(?:a_c)$`},
		{"(b|c)%", "^(?:(b|c).*)$"},
		{"[a_]%", "^(?:[a_].*)$"},
	} {
		if got, err := SimilarToRegex(c.pat, `\`); err != nil || got != c.want {
			t.Errorf("SimilarToRegex(%q) = %q, %v; want %q", c.pat, got, err, c.want)
		}
	}
}
