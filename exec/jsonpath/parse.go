package jsonpath

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

type nodeKind uint8

const (
	nRoot    nodeKind = iota // $
	nCurrent                 // @
	nVar                     // $name
	nLit                     // "s", 1.5, true, false, null
	nLast                    // last, inside a subscript
	nPath                    // l followed by the accessors in chain

	// Accessors, the members of a path's chain.
	nKey      // .name
	nAnyKey   // .*
	nIndex    // [subscripts]
	nAnyIndex // [*]
	nAny      // .** or .**{lo to hi}
	nMethod   // .name()
	nFilter   // ? (l)

	nArith // l op r: + - * / %
	nUnary // op l: + -

	// Predicates.
	nCmp       // l op r: == != < <= > >=
	nAnd       // l && r
	nOr        // l || r
	nNot       // !l
	nExists    // exists(l)
	nLike      // l like_regex "pattern" flag "flags"
	nStarts    // l starts with r
	nIsUnknown // (l) is unknown
)

type node struct {
	kind   nodeKind
	name   string           // key, variable, method or operator
	lit    *types.JSONValue // nLit
	l, r   *node
	chain  []*node     // nPath's accessors
	subs   []subscript // nIndex
	lo, hi int         // nAny's levels; -1 is last
	re     *regexp.Regexp
}

type subscript struct{ from, to *node } // to is nil for a single index

func (n *node) isPred() bool { return n.kind >= nCmp }

// Path is a parsed jsonpath.
type Path struct {
	strict bool
	expr   *node
}

// IsPredicate tells whether the path is a predicate (jsonb_path_match's
// kind: `$.a > 1`) rather than a path that yields items.
func (p *Path) IsPredicate() bool { return p.expr.isPred() }

// maxDepth bounds nesting so that a hostile path cannot exhaust the stack.
const maxDepth = 1000

type parser struct {
	toks  []token
	i     int
	depth int
}

// Parse reads a jsonpath, with PostgreSQL's 42601 errors for bad input.
func Parse(s string) (*Path, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	path := &Path{}
	if t := p.peek(); t.kind == tIdent && (t.text == "strict" || t.text == "lax") {
		path.strict = t.text == "strict"
		p.i++
	}
	if path.expr, err = p.or(); err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.unexpected()
	}
	if err := checkRoot(path.expr, false, false); err != nil {
		return nil, err
	}
	return path, nil
}

// checkRoot rejects @ outside filters and last outside subscripts, as
// PostgreSQL does when it flattens a parsed path.
func checkRoot(n *node, inFilter, inSub bool) error {
	if n == nil {
		return nil
	}
	switch n.kind {
	case nCurrent:
		if !inFilter {
			return pgerr.New(pgerr.SyntaxError, "@ is not allowed in root expressions")
		}
	case nLast:
		if !inSub {
			return pgerr.New(pgerr.SyntaxError, "LAST is allowed only in array subscripts")
		}
	case nFilter:
		inFilter = true
	case nIndex:
		for _, s := range n.subs {
			if err := checkRoot(s.from, inFilter, true); err != nil {
				return err
			}
			if err := checkRoot(s.to, inFilter, true); err != nil {
				return err
			}
		}
	}
	for _, c := range append([]*node{n.l, n.r}, n.chain...) {
		if err := checkRoot(c, inFilter, inSub); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isWord(s string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == s
}

func (p *parser) unexpected() error {
	t := p.peek()
	switch {
	case t.kind == tEOF, t.kind == tIdent && t.follow == "":
		return syntaxEnd()
	case t.kind == tIdent:
		return syntaxAt(t.follow)
	}
	return syntaxAt(t.raw)
}

// back steps back over t, a token next returned that does not fit.
func (p *parser) back(t token) {
	if t.kind != tEOF {
		p.i--
	}
}

func (p *parser) expect(s string) error {
	if !p.isPunct(s) {
		return p.unexpected()
	}
	p.i++
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return pgerr.New(pgerr.StatementTooComplex, "jsonpath is nested too deeply")
	}
	return nil
}

// or parses a predicate or an expression; || and && join predicates.
func (p *parser) or() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isPunct("||") {
		p.i++
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		if !l.isPred() || !r.isPred() {
			return nil, syntaxAt("||")
		}
		l = &node{kind: nOr, l: l, r: r}
	}
	return l, nil
}

func (p *parser) and() (*node, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.isPunct("&&") {
		p.i++
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		if !l.isPred() || !r.isPred() {
			return nil, syntaxAt("&&")
		}
		l = &node{kind: nAnd, l: l, r: r}
	}
	return l, nil
}

func (p *parser) not() (*node, error) {
	if !p.isPunct("!") {
		return p.cmp()
	}
	p.i++
	if !p.isPunct("(") && !p.isWord("exists") {
		return nil, p.unexpected()
	}
	x, err := p.cmp()
	if err != nil {
		return nil, err
	}
	if !x.isPred() {
		return nil, p.unexpected()
	}
	return &node{kind: nNot, l: x}, nil
}

var cmpOps = map[string]string{"==": "==", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

func (p *parser) cmp() (*node, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if op, ok := cmpOps[t.text]; ok && t.kind == tPunct {
		p.i++
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		if l.isPred() || r.isPred() {
			return nil, syntaxAt(t.raw)
		}
		return &node{kind: nCmp, name: op, l: l, r: r}, nil
	}
	switch {
	case p.isWord("like_regex") && !l.isPred():
		p.i++
		pat := p.next()
		if pat.kind != tString {
			p.back(pat)
			return nil, p.unexpected()
		}
		flags := ""
		if p.isWord("flag") {
			p.i++
			f := p.next()
			if f.kind != tString {
				p.back(f)
				return nil, p.unexpected()
			}
			flags = f.text
		}
		re, err := compileLike(pat.text, flags)
		if err != nil {
			return nil, err
		}
		return &node{kind: nLike, l: l, re: re, name: pat.text}, nil
	case p.isWord("starts") && !l.isPred():
		p.i++
		if !p.isWord("with") {
			return nil, p.unexpected()
		}
		p.i++
		t := p.next()
		var r *node
		switch t.kind {
		case tString:
			r = &node{kind: nLit, lit: strItem(t.text)}
		case tVar:
			r = &node{kind: nVar, name: t.text}
		default:
			p.back(t)
			return nil, p.unexpected()
		}
		return &node{kind: nStarts, l: l, r: r}, nil
	case p.isWord("is") && l.isPred():
		p.i++
		if !p.isWord("unknown") {
			return nil, p.unexpected()
		}
		p.i++
		return &node{kind: nIsUnknown, l: l}, nil
	}
	return l, nil
}

// compileLike turns like_regex's pattern and flags (i, s, m, x, q) into a
// Go regexp, as near as one comes to PostgreSQL's XQuery-flavoured one.
func compileLike(pat, flags string) (*regexp.Regexp, error) {
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 's', 'm':
			prefix += string(f)
		case 'x':
			return nil, pgerr.New(pgerr.FeatureNotSupported, "XQuery \"x\" flag (expanded regular expressions) is not implemented")
		case 'q':
			pat = regexp.QuoteMeta(pat)
		default:
			e := pgerr.New(pgerr.SyntaxError, "invalid input syntax for type jsonpath")
			e.Detail = "Unrecognized flag character \"" + string(f) + "\" in LIKE_REGEX predicate."
			return nil, e
		}
	}
	if prefix != "" {
		pat = "(?" + prefix + ")" + pat
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, pgerr.New(pgerr.InvalidRegularExpression, "invalid regular expression: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

func (p *parser) add() (*node, error) {
	l, err := p.mul()
	if err != nil {
		return nil, err
	}
	for p.isPunct("+") || p.isPunct("-") {
		op := p.next().text
		r, err := p.mul()
		if err != nil {
			return nil, err
		}
		if l.isPred() || r.isPred() {
			return nil, syntaxAt(op)
		}
		l = &node{kind: nArith, name: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) mul() (*node, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isPunct("*") || p.isPunct("/") || p.isPunct("%") {
		op := p.next().text
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		if l.isPred() || r.isPred() {
			return nil, syntaxAt(op)
		}
		l = &node{kind: nArith, name: op, l: l, r: r}
	}
	return l, nil
}

func (p *parser) unary() (*node, error) {
	if p.isPunct("+") || p.isPunct("-") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		op := p.next().text
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		if x.isPred() {
			return nil, syntaxAt(op)
		}
		return &node{kind: nUnary, name: op, l: x}, nil
	}
	return p.accessors()
}

// accessors parses a primary and the accessors after it.
func (p *parser) accessors() (*node, error) {
	prim, err := p.primary()
	if err != nil {
		return nil, err
	}
	var chain []*node
	for {
		switch {
		case p.isPunct("."):
			p.i++
			acc, err := p.dotAccessor()
			if err != nil {
				return nil, err
			}
			chain = append(chain, acc)
		case p.isPunct("["):
			p.i++
			acc, err := p.subscripts()
			if err != nil {
				return nil, err
			}
			chain = append(chain, acc)
		case p.isPunct("?"):
			p.i++
			if err := p.expect("("); err != nil {
				return nil, err
			}
			pred, err := p.or()
			if err != nil {
				return nil, err
			}
			if !pred.isPred() {
				return nil, p.unexpected()
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			chain = append(chain, &node{kind: nFilter, l: pred})
		default:
			if len(chain) == 0 {
				return prim, nil
			}
			if prim.isPred() {
				return nil, syntaxAt(".")
			}
			return &node{kind: nPath, l: prim, chain: chain}, nil
		}
	}
}

var methods = map[string]bool{"type": true, "size": true, "double": true, "ceiling": true, "floor": true,
	"abs": true, "keyvalue": true, "datetime": true}

func (p *parser) dotAccessor() (*node, error) {
	t := p.next()
	switch {
	case t.kind == tPunct && t.text == "*":
		return &node{kind: nAnyKey}, nil
	case t.kind == tPunct && t.text == "**":
		n := &node{kind: nAny, lo: 0, hi: -1}
		if p.isPunct("{") {
			p.i++
			lo, err := p.level()
			if err != nil {
				return nil, err
			}
			n.lo, n.hi = lo, lo
			if p.isWord("to") {
				p.i++
				if n.hi, err = p.level(); err != nil {
					return nil, err
				}
			}
			if err := p.expect("}"); err != nil {
				return nil, err
			}
		}
		return n, nil
	case t.kind == tIdent && p.isPunct("(") && methods[t.text]:
		p.i++
		if t.text == "datetime" && p.peek().kind == tString {
			p.i++ // a template: datetime() is refused when it runs
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return &node{kind: nMethod, name: t.text}, nil
	case t.kind == tIdent, t.kind == tString:
		return &node{kind: nKey, name: t.text}, nil
	}
	p.back(t)
	return nil, p.unexpected()
}

// level is a .** bound: an integer or last (-1).
func (p *parser) level() (int, error) {
	t := p.next()
	switch {
	case t.kind == tIdent && t.text == "last":
		return -1, nil
	case t.kind == tNumber:
		n, err := strconv.Atoi(t.text)
		if err != nil || n < 0 {
			return 0, syntaxAt(t.raw)
		}
		return n, nil
	}
	p.back(t)
	return 0, p.unexpected()
}

func (p *parser) subscripts() (*node, error) {
	if p.isPunct("*") {
		p.i++
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		return &node{kind: nAnyIndex}, nil
	}
	n := &node{kind: nIndex}
	for {
		from, err := p.or()
		if err != nil {
			return nil, err
		}
		s := subscript{from: from}
		if p.isWord("to") {
			p.i++
			if s.to, err = p.or(); err != nil {
				return nil, err
			}
		}
		if s.from.isPred() || s.to != nil && s.to.isPred() {
			return nil, p.unexpected()
		}
		n.subs = append(n.subs, s)
		if p.isPunct(",") {
			p.i++
			continue
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		return n, nil
	}
}

func (p *parser) primary() (*node, error) {
	t := p.next()
	switch t.kind {
	case tRoot:
		return &node{kind: nRoot}, nil
	case tCurrent:
		return &node{kind: nCurrent}, nil
	case tVar:
		return &node{kind: nVar, name: t.text}, nil
	case tString:
		return &node{kind: nLit, lit: strItem(t.text)}, nil
	case tNumber:
		if i := strings.IndexAny(t.text, "eE"); i >= 0 {
			// numeric's input refuses exponents beyond ±1000, which
			// also keeps a literal from growing a million digits.
			if e, err := strconv.Atoi(t.text[i+1:]); err != nil || e > 1000 || e < -1000 {
				return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: \"%s\"", t.text)
			}
		}
		d, err := types.ParseDec(t.text)
		if err != nil {
			return nil, syntaxAt(t.raw)
		}
		return &node{kind: nLit, lit: numItem(d)}, nil
	case tIdent:
		switch t.text {
		case "true":
			return &node{kind: nLit, lit: boolItem(true)}, nil
		case "false":
			return &node{kind: nLit, lit: boolItem(false)}, nil
		case "null":
			return &node{kind: nLit, lit: nullItem()}, nil
		case "last":
			return &node{kind: nLast}, nil
		case "exists":
			if err := p.expect("("); err != nil {
				return nil, err
			}
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			if x.isPred() {
				return nil, p.unexpected()
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return &node{kind: nExists, l: x}, nil
		}
	case tPunct:
		if t.text == "(" {
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return x, nil
		}
	case tEOF:
		return nil, syntaxEnd()
	}
	p.back(t)
	return nil, p.unexpected()
}
