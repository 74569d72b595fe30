package expr

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// reCache keeps compiled patterns by flags and text, as PostgreSQL's own
// regex cache does, so row-wise calls with a constant pattern compile once.
var reCache sync.Map

var reCacheSize atomic.Int64

// pgRegexp compiles a PostgreSQL advanced regular expression with Go's
// RE2, translating the escapes the two spell differently. fold is case
// insensitivity; newline makes . and [^...] stop at newlines and ^ $
// match at them ('n' flag).
func pgRegexp(pattern string, fold, newline bool) (*regexp.Regexp, error) {
	key := string([]byte{boolByte(fold), boolByte(newline)}) + pattern
	if re, ok := reCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	prefix := "(?s)"
	if newline {
		prefix = "(?m)"
	}
	if fold {
		prefix += "(?i)"
	}
	re, err := regexp.Compile(prefix + translateARE(pattern))
	if err != nil {
		msg := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			msg = string(se.Code)
			if m, ok := reMessages[se.Code]; ok {
				msg = m
			}
		}
		return nil, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", msg)
	}
	// A crude bound: forget everything past a few thousand patterns.
	if reCacheSize.Add(1) > 4096 {
		reCache.Clear()
		reCacheSize.Store(0)
	}
	reCache.Store(key, re)
	return re, nil
}

// reMessages are PostgreSQL's words for the RE2 errors that have one.
var reMessages = map[syntax.ErrorCode]string{
	syntax.ErrMissingParen:          "parentheses () not balanced",
	syntax.ErrUnexpectedParen:       "parentheses () not balanced",
	syntax.ErrMissingBracket:        "brackets [] not balanced",
	syntax.ErrMissingRepeatArgument: "quantifier operand invalid",
	syntax.ErrInvalidRepeatOp:       "quantifier operand invalid",
	syntax.ErrInvalidRepeatSize:     "invalid repetition count(s)",
	syntax.ErrInvalidEscape:         "invalid escape \\ sequence",
	syntax.ErrTrailingBackslash:     "invalid escape \\ sequence",
	syntax.ErrInvalidCharRange:      "invalid character range",
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// translateARE rewrites the ARE escapes RE2 lacks or spells otherwise.
func translateARE(p string) string {
	if !strings.ContainsAny(p, `\[`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '[' && (strings.HasPrefix(p[i:], "[[:<:]]") || strings.HasPrefix(p[i:], "[[:>:]]")) {
			b.WriteString(`\b`)
			i += 6
			continue
		}
		if c != '\\' || i+1 >= len(p) {
			b.WriteByte(c)
			continue
		}
		i++
		switch p[i] {
		case 'm', 'M', 'y':
			b.WriteString(`\b`)
		case 'Y':
			b.WriteString(`\B`)
		case 'Z':
			b.WriteString(`\z`)
		default:
			b.WriteByte('\\')
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

func errGlobalFlag(fn string) error {
	return pgerr.New(pgerr.InvalidParameterValue, "%s() does not support the \"global\" option", fn).
		WithHint("Use the regexp_matches function instead.")
}

// reFlags reads the flags argument of the regexp_* functions.
func reFlags(flags string) (fold, newline, global bool, err error) {
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i':
			fold = true
		case 'c':
			fold = false
		case 'n', 'm':
			newline = true
		case 's':
			newline = false
		default:
			return false, false, false, pgerr.New(pgerr.InvalidParameterValue, "invalid regular expression option: \"%c\"", f)
		}
	}
	return
}

// RegexMatch is `x ~ p`, `~*`, `!~`, `!~*`.
type RegexMatch struct {
	Arg, Pattern Expr
	Fold, Negate bool
	re           *regexp.Regexp // compiled once when the pattern is constant
}

// NewRegexMatch builds a match, compiling a constant pattern up front.
func NewRegexMatch(arg, pattern Expr, fold, negate bool) (*RegexMatch, error) {
	m := &RegexMatch{Arg: arg, Pattern: pattern, Fold: fold, Negate: negate}
	if d, ok := IsConst(pattern); ok && !d.Null {
		re, err := pgRegexp(d.S, fold, false)
		if err != nil {
			return nil, err
		}
		m.re = re
	}
	return m, nil
}

func (e *RegexMatch) Type() types.T { return types.TBool }
func (e *RegexMatch) String() string {
	op := "~"
	if e.Negate {
		op = "!~"
	}
	if e.Fold {
		op += "*"
	}
	return "(" + e.Arg.String() + " " + op + " " + e.Pattern.String() + ")"
}

func (e *RegexMatch) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{e.Arg, e.Pattern})
	if err != nil {
		return nil, err
	}
	defer release(args)
	s, p := args[0].(*array.String), args[1].(*array.String)
	n := s.Len()
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		if s.IsNull(i) || p.IsNull(i) {
			bld.AppendNull()
			continue
		}
		re := e.re
		if re == nil {
			if re, err = pgRegexp(p.Value(i), e.Fold, false); err != nil {
				bld.Release()
				return nil, err
			}
		}
		bld.Append(re.MatchString(s.Value(i)) != e.Negate)
	}
	return bld.NewArray(), nil
}

// expandReplacement writes repl for one match: \1..\9 are groups, \& the
// whole match, \\ a backslash; any other backslash is kept.
func expandReplacement(b *strings.Builder, src, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 >= len(repl) {
			b.WriteByte(c)
			continue
		}
		n := repl[i+1]
		switch {
		case n >= '1' && n <= '9':
			g := int(n - '0')
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(src[m[2*g]:m[2*g+1]])
			}
			i++
		case n == '&':
			b.WriteString(src[m[0]:m[1]])
			i++
		case n == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte('\\')
		}
	}
}

func regexpReplace(src, pattern, repl, flags string) (string, error) {
	fold, newline, global, err := reFlags(flags)
	if err != nil {
		return "", err
	}
	re, err := pgRegexp(pattern, fold, newline)
	if err != nil {
		return "", err
	}
	n := 1
	if global {
		n = -1
	}
	ms := re.FindAllStringSubmatchIndex(src, n)
	if ms == nil {
		return src, nil
	}
	if global {
		ms = addEmptyAfter(re, pattern, src, ms)
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(src[last:m[0]])
		expandReplacement(&b, src, repl, m)
		last = m[1]
	}
	b.WriteString(src[last:])
	return b.String(), nil
}

// addEmptyAfter adds the empty matches Go skips right after a non-empty
// match but PostgreSQL takes ('aaa' with a* is two matches there). The
// check searches the rest of the string alone, so it is skipped for
// patterns whose assertions look at the text before.
func addEmptyAfter(re *regexp.Regexp, pattern, src string, ms [][]int) [][]int {
	if strings.ContainsAny(pattern, "^") || strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\B`) ||
		strings.Contains(pattern, `\m`) || strings.Contains(pattern, `\M`) || strings.Contains(pattern, `\y`) ||
		strings.Contains(pattern, `\Y`) || strings.Contains(pattern, `\A`) || strings.Contains(pattern, "[[:<:]]") || strings.Contains(pattern, "[[:>:]]") {
		return ms
	}
	var out [][]int
	for i, m := range ms {
		out = append(out, m)
		e := m[1]
		if m[0] == e || i+1 < len(ms) && ms[i+1][0] == e {
			continue
		}
		if next := re.FindStringSubmatchIndex(src[e:]); next != nil && next[1] == 0 {
			for k := range next {
				if next[k] >= 0 {
					next[k] += e
				}
			}
			out = append(out, next)
		}
	}
	return out
}

// regexSubstring is substring(s FROM pattern): the first parenthesized
// group's text if the pattern has groups, else the whole match.
func regexSubstring(_ *Ctx, a []types.Datum) (types.Datum, error) {
	re, err := pgRegexp(a[1].S, false, false)
	if err != nil {
		return types.Datum{}, err
	}
	m := re.FindStringSubmatchIndex(a[0].S)
	if m == nil {
		return types.NullOf(types.TText), nil
	}
	if len(m) > 2 {
		if m[2] < 0 {
			return types.NullOf(types.TText), nil
		}
		return types.TextDatum(a[0].S[m[2]:m[3]]), nil
	}
	return types.TextDatum(a[0].S[m[0]:m[1]]), nil
}

// similarSubstring is substring(s SIMILAR pattern ESCAPE esc) (also
// spelled FROM pattern FOR esc): the part between the esc" separators.
func similarSubstring(_ *Ctx, a []types.Datum) (types.Datum, error) {
	p, err := SimilarToRegex(a[1].S, a[2].S)
	if err != nil {
		return types.Datum{}, err
	}
	return regexSubstring(nil, []types.Datum{a[0], types.TextDatum(p)})
}

// SimilarToRegex converts a SQL SIMILAR TO pattern to an anchored regular
// expression, as similar_to_escape does; esc is the escape character
// ("" for none, the default being backslash).
func SimilarToRegex(pat, esc string) (string, error) {
	if len([]rune(esc)) > 1 {
		return "", pgerr.New(codeInvalidEscapeChar, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var e rune = -1
	if esc != "" {
		e = []rune(esc)[0]
	}
	var b strings.Builder
	b.WriteString("^(?:")
	inBracket, afterEsc := false, false
	seps := 0
	for _, r := range pat {
		switch {
		case afterEsc && r == '"':
			// esc" separators mark the part substring(... SIMILAR ...)
			// returns: the part before matches lazily, as PostgreSQL does.
			seps++
			if seps > 2 {
				return "", pgerr.New(pgerr.InvalidRegularExpression, "SQL regular expression may not contain more than two escape-double-quote separators")
			}
			if seps == 1 {
				b.WriteString("){1,1}?(")
			} else {
				b.WriteString("){1,1}(?:")
			}
			afterEsc = false
		case afterEsc:
			b.WriteString(regexp.QuoteMeta(string(r)))
			afterEsc = false
		case r == e:
			afterEsc = true
		case inBracket:
			if r == ']' {
				inBracket = false
			}
			b.WriteRune(r)
		case r == '[':
			inBracket = true
			b.WriteRune(r)
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteByte('.')
		case r == '.', r == '^', r == '$', r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}

func init() {
	replFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		flags := ""
		if len(a) > 3 {
			flags = a[3].S
		}
		s, err := regexpReplace(a[0].S, a[1].S, a[2].S, flags)
		return types.TextDatum(s), err
	}
	register([]Overload{sig(text, replFn, text, text, text), sig(text, replFn, text, text, text, text)}, "regexp_replace")
	likeFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		flags := ""
		if len(a) > 2 {
			flags = a[2].S
		}
		fold, newline, global, err := reFlags(flags)
		if err == nil && global {
			err = errGlobalFlag("regexp_like")
		}
		if err != nil {
			return types.Datum{}, err
		}
		re, err := pgRegexp(a[1].S, fold, newline)
		if err != nil {
			return types.Datum{}, err
		}
		return types.BoolDatum(re.MatchString(a[0].S)), nil
	}
	register([]Overload{sig(types.Bool, likeFn, text, text), sig(types.Bool, likeFn, text, text, text)}, "regexp_like")
	register([]Overload{sig(int4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		re, err := pgRegexp(a[1].S, false, false)
		if err != nil {
			return types.Datum{}, err
		}
		return types.Int(types.TInt4, int64(len(re.FindAllStringIndex(a[0].S, -1)))), nil
	}, text, text)}, "regexp_count")
	simFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		esc := `\`
		if len(a) > 1 {
			if a[1].Null {
				return types.NullOf(types.TText), nil
			}
			esc = a[1].S
		}
		if a[0].Null {
			return types.NullOf(types.TText), nil
		}
		s, err := SimilarToRegex(a[0].S, esc)
		return types.TextDatum(s), err
	}
	register([]Overload{{Args: []types.Kind{text}, Ret: types.TText, Fn: simFn},
		{Args: []types.Kind{text, text}, Ret: types.TText, Fn: simFn}}, "similar_to_escape")
}
