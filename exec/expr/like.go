package expr

import (
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Like is `x [NOT] LIKE|ILIKE pattern` with backslash as the escape.
type Like struct {
	Arg, Pattern Expr
	Fold         bool // ILIKE
	Negate       bool
	re           *regexp.Regexp // compiled once when the pattern is constant
}

// NewLike builds a LIKE, compiling a constant pattern up front.
func NewLike(arg, pattern Expr, fold, negate bool) (*Like, error) {
	l := &Like{Arg: arg, Pattern: pattern, Fold: fold, Negate: negate}
	if d, ok := IsConst(pattern); ok && !d.Null {
		re, err := LikeRegexp(d.S, fold)
		if err != nil {
			return nil, err
		}
		l.re = re
	}
	return l, nil
}

func (e *Like) Type() types.T { return types.TBool }
func (e *Like) String() string {
	op := " LIKE "
	if e.Fold {
		op = " ILIKE "
	}
	if e.Negate {
		op = " NOT" + op
	}
	return "(" + e.Arg.String() + op + e.Pattern.String() + ")"
}

func (e *Like) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{e.Arg, e.Pattern})
	if err != nil {
		return nil, err
	}
	defer release(args)
	s, p := args[0].(*array.String), args[1].(*array.String)
	out := make([]bool, s.Len())
	cache := map[string]*regexp.Regexp{}
	for i := range out {
		if s.IsNull(i) || p.IsNull(i) {
			continue
		}
		re := e.re
		if re == nil {
			pat := p.Value(i)
			if re = cache[pat]; re == nil {
				if re, err = LikeRegexp(pat, e.Fold); err != nil {
					return nil, err
				}
				cache[pat] = re
			}
		}
		out[i] = re.MatchString(s.Value(i)) != e.Negate
	}
	return boolArray(out, s, p), nil
}

// LikeRegexp translates a LIKE pattern into an anchored regular expression.
func LikeRegexp(pattern string, fold bool) (*regexp.Regexp, error) {
	var sb strings.Builder
	sb.WriteString(`(?s)`)
	if fold {
		sb.WriteString(`(?i)`)
	}
	sb.WriteString(`\A`)
	for i := 0; i < len(pattern); i++ {
		switch ch := pattern[i]; ch {
		case '%':
			sb.WriteString(`.*`)
		case '_':
			sb.WriteString(`.`)
		case '\\':
			if i+1 >= len(pattern) {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "LIKE pattern must not end with escape character")
			}
			i++
			sb.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		default:
			// Copy a whole UTF-8 sequence at once.
			j := i + 1
			for j < len(pattern) && pattern[j]&0xC0 == 0x80 {
				j++
			}
			sb.WriteString(regexp.QuoteMeta(pattern[i:j]))
			i = j - 1
		}
	}
	sb.WriteString(`\z`)
	return regexp.Compile(sb.String())
}
