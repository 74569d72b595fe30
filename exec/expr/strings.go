package expr

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

const (
	codeSubstringError    = "22011"
	codeInvalidEscapeChar = "22025"
)

var (
	text  = types.Text
	int4  = types.Int4
	int8k = types.Int8
)

func textFn(f func(a []types.Datum) (string, error)) RowFunc {
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, err := f(a)
		return types.TextDatum(s), err
	}
}

// mapStrings applies f to each non-NULL value of a string column: the
// cheap columnar path for one-argument text functions.
func mapStrings(f func(string) string) VecFunc {
	return func(_ *Ctx, _ []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
		if vals[0] == nil {
			return nil, nil // a constant: the row path does it once per row
		}
		in := vals[0].(*array.String)
		bld := array.NewStringBuilder(memory.DefaultAllocator)
		bld.Reserve(n)
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				bld.AppendNull()
				continue
			}
			bld.Append(f(in.Value(i)))
		}
		return bld.NewArray(), nil
	}
}

// countStrings is mapStrings for int4 results.
func countStrings(f func(string) int) VecFunc {
	return func(_ *Ctx, _ []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
		if vals[0] == nil {
			return nil, nil
		}
		in := vals[0].(*array.String)
		bld := array.NewInt32Builder(memory.DefaultAllocator)
		bld.Reserve(n)
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				bld.AppendNull()
				continue
			}
			bld.Append(int32(f(in.Value(i))))
		}
		return bld.NewArray(), nil
	}
}

// substrVec is substr over a string column; start and count may be
// columns or constants.
func substrVec(_ *Ctx, args []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
	if vals[0] == nil {
		return nil, nil
	}
	in := vals[0].(*array.String)
	ints := make([]func(i int) (int64, bool), len(args)-1)
	for k := range ints {
		if v := vals[k+1]; v != nil {
			a := v.(*array.Int32)
			ints[k] = func(i int) (int64, bool) { return int64(a.Value(i)), a.IsValid(i) }
		} else {
			d := args[k+1].(*Const).D
			ints[k] = func(int) (int64, bool) { return d.I, !d.Null }
		}
	}
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		start, ok := ints[0](i)
		var count int64
		if ok && len(ints) > 1 {
			count, ok = ints[1](i)
		}
		if !ok || in.IsNull(i) {
			bld.AppendNull()
			continue
		}
		s, err := substr(in.Value(i), start, count, len(ints) > 1)
		if err != nil {
			bld.Release()
			return nil, err
		}
		bld.Append(s)
	}
	return bld.NewArray(), nil
}

func strFn1(f func(string) string) Overload {
	return Overload{Args: []types.Kind{text}, Ret: types.TText, Strict: true, Vec: mapStrings(f),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) { return types.TextDatum(f(a[0].S)), nil }}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// runeSlice returns the characters [from, to) of s (0-based, clamped).
func runeSlice(s string, from, to int64) string {
	if from < 0 {
		from = 0
	}
	if to <= from {
		return ""
	}
	i, start, end := int64(0), len(s), len(s)
	for p := range s {
		if i == from {
			start = p
		}
		if i == to {
			end = p
			break
		}
		i++
	}
	if start > end {
		return ""
	}
	return s[start:end]
}

// substr is PostgreSQL's text_substr: start is 1-based and may be before
// the string; a negative count is an error.
func substr(s string, start, count int64, hasCount bool) (string, error) {
	if !hasCount {
		return runeSlice(s, start-1, int64(len(s))+1), nil
	}
	if count < 0 {
		return "", pgerr.New(codeSubstringError, "negative substring length not allowed")
	}
	end := start + count
	if end < start { // overflow
		end = int64(len(s)) + 1
	}
	return runeSlice(s, start-1, end-1), nil
}

// strpos is the 1-based character position of needle in s, 0 if absent.
func strpos(s, needle string) int64 {
	i := strings.Index(s, needle)
	if i < 0 {
		return 0
	}
	return int64(runeLen(s[:i])) + 1
}

func splitPart(s, delim string, n int64) (string, error) {
	if n == 0 {
		return "", pgerr.New(pgerr.InvalidParameterValue, "field position must not be zero")
	}
	if delim == "" {
		if n == 1 || n == -1 {
			return s, nil
		}
		return "", nil
	}
	parts := strings.Split(s, delim)
	if s == "" {
		return "", nil
	}
	if n < 0 {
		n += int64(len(parts)) + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}

func trimSet(s, chars string, left, right bool) string {
	in := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

func leftChars(s string, n int64) string {
	if n < 0 {
		return runeSlice(s, 0, int64(runeLen(s))+n)
	}
	return runeSlice(s, 0, n)
}

func rightChars(s string, n int64) string {
	l := int64(runeLen(s))
	if n < 0 {
		return runeSlice(s, -n, l)
	}
	return runeSlice(s, l-n, l)
}

func pad(s string, length int64, fill string, left bool) (string, error) {
	if length <= 0 {
		return "", nil
	}
	if length > 10<<20 {
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
	}
	l := int64(runeLen(s))
	if l >= length || fill == "" {
		return runeSlice(s, 0, length), nil
	}
	fr := []rune(fill)
	need := length - l
	var b strings.Builder
	for i := int64(0); i < need; i++ {
		b.WriteRune(fr[i%int64(len(fr))])
	}
	if left {
		return b.String() + s, nil
	}
	return s + b.String(), nil
}

func repeatStr(s string, n int64) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if int64(len(s))*n > 1<<30-1 || int64(len(s))*n/n != int64(len(s)) {
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
	}
	return strings.Repeat(s, int(n)), nil
}

func reverseStr(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// initcap upper-cases the first letter of each run of letters and digits
// and lower-cases the rest, as PostgreSQL's initcap does.
func initcap(s string) string {
	var b strings.Builder
	inWord := false
	for _, r := range s {
		if inWord {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

func chr(n int64) (string, error) {
	switch {
	case n == 0:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "null character not permitted")
	case n < 0:
		return "", pgerr.New(pgerr.InvalidParameterValue, "character number must be positive")
	case n > 0x10FFFF:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character too large for encoding: %d", n)
	case n >= 0xD800 && n <= 0xDFFF:
		return "", pgerr.New(pgerr.ProgramLimitExceeded, "requested character not valid for encoding: %d", n)
	}
	return string(rune(n)), nil
}

func translate(s, from, to string) string {
	fr, tr := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		i := -1
		for k, f := range fr {
			if f == r {
				i = k
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(tr):
			b.WriteRune(tr[i])
		}
	}
	return b.String()
}

// toHex prints an integer as PostgreSQL's to_hex does: negative values in
// the two's complement of the argument's width.
func toHex(d types.Datum) string {
	if d.T.Kind == types.Int4 {
		return strconv.FormatUint(uint64(uint32(int32(d.I))), 16)
	}
	return strconv.FormatUint(uint64(d.I), 16)
}

// textOf is a value's output text, what concat and format print.
func textOf(c *Ctx, d types.Datum) string {
	if d.T.IsString() {
		return d.S
	}
	return types.FormatText(d, c.Loc)
}

func concatWS(c *Ctx, sep string, vals []types.Datum) string {
	var b strings.Builder
	first := true
	for _, v := range vals {
		if v.Null {
			continue
		}
		if !first {
			b.WriteString(sep)
		}
		first = false
		b.WriteString(textOf(c, v))
	}
	return b.String()
}

// QuoteIdent quotes an identifier unless it is a plain lower-case name.
func QuoteIdent(s string) string {
	plain := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if plain && !reservedWords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// reservedWords are the keywords quote_ident must quote (the reserved and
// type/function-name keywords commonly met; not PostgreSQL's full list).
var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral leading limit localtime localtimestamp not null offset on only or order placing primary references returning select session_user some symmetric table then to trailing true union unique user using variadic when where window with authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull join left like natural notnull outer overlaps right similar tablesample verbose between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping inout int integer interval least national nchar none normalize nullif numeric out overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable`) {
		reservedWords[w] = true
	}
}

// QuoteLiteral quotes a string as a literal, E” when it has backslashes.
func QuoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// format implements format(fmt, args...) with %s, %I, %L, %% and
// positional %n$ references; widths are not supported.
func format(c *Ctx, f string, args []types.Datum) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier").
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		arg := next
		if j := i; f[j] >= '0' && f[j] <= '9' {
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			if j < len(f) && f[j] == '$' {
				n, _ := strconv.Atoi(f[i:j])
				if n == 0 {
					return "", pgerr.New(pgerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
				}
				arg = n - 1
				i = j + 1
				if i >= len(f) {
					return "", pgerr.New(pgerr.InvalidParameterValue, "unterminated format() type specifier").
						WithHint("For a single \"%%\" use \"%%%%\".")
				}
			}
		}
		conv := f[i]
		if conv != 's' && conv != 'I' && conv != 'L' {
			return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", conv).
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if arg >= len(args) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "too few arguments for format()")
		}
		next = arg + 1
		d := args[arg]
		switch conv {
		case 's':
			if !d.Null {
				b.WriteString(textOf(c, d))
			}
		case 'I':
			if d.Null {
				return "", pgerr.New(pgerr.InvalidParameterValue, "null values cannot be formatted as an SQL identifier")
			}
			b.WriteString(QuoteIdent(textOf(c, d)))
		case 'L':
			if d.Null {
				b.WriteString("NULL")
			} else {
				b.WriteString(QuoteLiteral(textOf(c, d)))
			}
		}
	}
	return b.String(), nil
}

func init() {
	lengthOv := []Overload{{Args: []types.Kind{text}, Ret: types.TInt4, Strict: true, Vec: countStrings(runeLen),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.Int(types.TInt4, int64(runeLen(a[0].S))), nil
		}}}
	register(lengthOv, "length", "char_length", "character_length")
	register([]Overload{{Args: []types.Kind{text}, Ret: types.TInt4, Strict: true,
		Vec: countStrings(func(s string) int { return len(s) }),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.Int(types.TInt4, int64(len(a[0].S))), nil
		}}}, "octet_length")
	register([]Overload{strFn1(strings.ToLower)}, "lower")
	register([]Overload{strFn1(strings.ToUpper)}, "upper")
	register([]Overload{strFn1(reverseStr)}, "reverse")
	register([]Overload{strFn1(initcap)}, "initcap")
	register([]Overload{strFn1(func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }), md5Bytea}, "md5")

	substrOv := []Overload{
		sig(text, textFn(func(a []types.Datum) (string, error) { return substr(a[0].S, a[1].I, 0, false) }), text, int4),
		sig(text, textFn(func(a []types.Datum) (string, error) { return substr(a[0].S, a[1].I, a[2].I, true) }), text, int4, int4),
	}
	substrOv[0].Vec, substrOv[1].Vec = substrVec, substrVec
	// substring also has the regex forms: FROM pattern (POSIX) and
	// SIMILAR pattern ESCAPE e / FROM pattern FOR e (SQL).
	register([]Overload{substrOv[0], substrOv[1], sig(text, regexSubstring, text, text),
		sig(text, similarSubstring, text, text, text)}, "substring")
	register(substrOv, "substr")
	posFn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.Int(types.TInt4, strpos(a[0].S, a[1].S)), nil
	}
	register([]Overload{sig(int4, posFn, text, text)}, "strpos", "position")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) {
		if a[1].S == "" {
			return a[0].S, nil
		}
		return strings.ReplaceAll(a[0].S, a[1].S, a[2].S), nil
	}), text, text, text)}, "replace")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) {
		return splitPart(a[0].S, a[1].S, a[2].I)
	}), text, text, int4)}, "split_part")
	register([]Overload{{Args: []types.Kind{Any}, Variadic: true, Ret: types.TText,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) { return types.TextDatum(concatWS(c, "", a)), nil }}}, "concat")
	register([]Overload{{Args: []types.Kind{text, Any}, Variadic: true, Ret: types.TText,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].Null {
				return types.NullOf(types.TText), nil
			}
			return types.TextDatum(concatWS(c, a[0].S, a[1:])), nil
		}}}, "concat_ws")
	for name, lr := range map[string][2]bool{"btrim": {true, true}, "ltrim": {true, false}, "rtrim": {false, true}} {
		lr := lr
		register([]Overload{
			strFn1(func(s string) string { return trimSet(s, " ", lr[0], lr[1]) }),
			sig(text, textFn(func(a []types.Datum) (string, error) { return trimSet(a[0].S, a[1].S, lr[0], lr[1]), nil }), text, text),
		}, name)
	}
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return leftChars(a[0].S, a[1].I), nil }), text, int4)}, "left")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return rightChars(a[0].S, a[1].I), nil }), text, int4)}, "right")
	for name, left := range map[string]bool{"lpad": true, "rpad": false} {
		left := left
		register([]Overload{
			sig(text, textFn(func(a []types.Datum) (string, error) { return pad(a[0].S, a[1].I, " ", left) }), text, int4),
			sig(text, textFn(func(a []types.Datum) (string, error) { return pad(a[0].S, a[1].I, a[2].S, left) }), text, int4, text),
		}, name)
	}
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return repeatStr(a[0].S, a[1].I) }), text, int4)}, "repeat")
	register([]Overload{sig(types.Bool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.BoolDatum(strings.HasPrefix(a[0].S, a[1].S)), nil
	}, text, text)}, "starts_with")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return chr(a[0].I) }), int4)}, "chr")
	register([]Overload{sig(int4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		r, _ := utf8.DecodeRuneInString(a[0].S)
		if a[0].S == "" {
			r = 0
		}
		return types.Int(types.TInt4, int64(r)), nil
	}, text)}, "ascii")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return translate(a[0].S, a[1].S, a[2].S), nil }), text, text, text)}, "translate")
	formatFn := func(c *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Null {
			return types.NullOf(types.TText), nil
		}
		s, err := format(c, a[0].S, a[1:])
		return types.TextDatum(s), err
	}
	register([]Overload{{Args: []types.Kind{text}, Ret: types.TText, Fn: formatFn},
		{Args: []types.Kind{text, Any}, Variadic: true, Ret: types.TText, Fn: formatFn}}, "format")
	hexFn := textFn(func(a []types.Datum) (string, error) { return toHex(a[0]), nil })
	register([]Overload{sig(text, hexFn, int4), sig(text, hexFn, int8k)}, "to_hex")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return QuoteIdent(a[0].S), nil }), text)}, "quote_ident")
	// pg_typeof is a regtype, which Loam carries as the type's name (with
	// no modifier, as regtype prints).
	register([]Overload{{Args: []types.Kind{Any}, Ret: types.Of(types.Regtype), Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		t := a[0].T
		t.Width, t.Scale = -1, 0
		return types.Datum{T: types.Of(types.Regtype), S: t.String()}, nil
	}}}, "pg_typeof")
	register([]Overload{sig(text, textFn(func(a []types.Datum) (string, error) { return QuoteLiteral(a[0].S), nil }), text)}, "quote_literal")
}

// TextCat is `a || b` where one side is text and the other any non-array
// type: the other side is printed with its output function.
func TextCat(l, r Expr) Expr {
	return &Func{Name: "textcat", Args: []Expr{l, r}, T: types.TText, Strict: true,
		Fn: func(c *Ctx, a []types.Datum) (types.Datum, error) {
			return types.TextDatum(castText(c, a[0]) + castText(c, a[1])), nil
		}}
}

// castText is v::text, which differs from the output function only for
// booleans (true, not t).
func castText(c *Ctx, d types.Datum) string {
	if d.T.Kind == types.Bool {
		if d.I != 0 {
			return "true"
		}
		return "false"
	}
	return textOf(c, d)
}
