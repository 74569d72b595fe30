package difffuzz

import (
	"fmt"
	"strings"
)

// Expr is an expression as the generator built it: its text is
// Parts[0] Args[0] Parts[1] … Args[n-1] Parts[n]. Keeping the arguments
// apart lets the reducer replace a node by one of its arguments, or by a
// constant, without knowing what the node is. Sub, when set, is a
// subquery and the node renders as its text alone.
type Expr struct {
	K     Kind
	Parts []string
	Args  []*Expr
	Sub   *Select
	Agg   bool   // an aggregate call: the reducer keeps it in grouped queries
	Win   bool   // a window function call
	Const bool   // a literal or NULL: nothing to reduce
	Col   string // the column's name when the node is a bare column
}

// node builds an Expr from text with %s marking each argument.
func node(k Kind, format string, args ...*Expr) *Expr {
	parts := strings.Split(format, "%s")
	if len(parts) != len(args)+1 {
		panic(fmt.Sprintf("node %q: %d args", format, len(args)))
	}
	return &Expr{K: k, Parts: parts, Args: args}
}

func constant(k Kind, text string) *Expr {
	return &Expr{K: k, Parts: []string{text}, Const: true}
}

// SQL is e's text.
func (e *Expr) SQL() string {
	if e.Sub != nil {
		return e.Sub.SQL()
	}
	var b strings.Builder
	for i, p := range e.Parts {
		b.WriteString(p)
		if i < len(e.Args) {
			b.WriteString(e.Args[i].SQL())
		}
	}
	return b.String()
}

// Item is one output column of a SELECT.
type Item struct {
	E     *Expr
	Alias string
}

// OrderKey orders a SELECT by one of its output columns, named by
// position: the comparer checks the order of exactly these columns.
type OrderKey struct {
	Item  *Item
	Desc  bool
	Nulls string // "", "NULLS FIRST", "NULLS LAST"
	// ByName: by the item's alias, or its text when it is a bare column
	// (SELECT t.a, t.a … ORDER BY t.a), else by position.
	ByName bool
}

// From is one FROM item: a table or CTE (Name), a derived table (Sub),
// or a join of two items.
type From struct {
	Name  string // table or CTE name
	Sub   *Select
	Alias string
	// A join: Left JoinType Right ON On | USING (Using).
	Join  string
	Left  *From
	Right *From
	On    *Expr
	Using []string
}

func (f *From) SQL() string {
	if f.Join != "" {
		s := f.Left.SQL() + " " + f.Join + " " + f.Right.SQL()
		switch {
		case f.On != nil:
			s += " ON " + f.On.SQL()
		case len(f.Using) > 0:
			s += " USING (" + strings.Join(f.Using, ", ") + ")"
		}
		return s
	}
	var s string
	if f.Sub != nil {
		s = "(" + f.Sub.SQL() + ")"
	} else {
		s = f.Name
	}
	if f.Alias != "" && f.Alias != f.Name {
		s += " AS " + f.Alias
	}
	return s
}

// CTE is one WITH entry.
type CTE struct {
	Name string
	Cols []string
	Q    *Select
}

// Select is a query. A set operation is Op (UNION, INTERSECT, EXCEPT, with
// ALL) between the SELECT this describes and Right; ORDER BY and LIMIT
// then apply to the whole.
type Select struct {
	With     []*CTE
	Distinct bool
	Items    []*Item
	From     []*From
	Where    *Expr
	GroupBy  []*Expr
	Grouping string // "", "ROLLUP", "CUBE", "GROUPING SETS": how GroupBy is grouped
	Having   *Expr
	Op       string
	Right    *Select
	Order    []*OrderKey
	Limit    int // -1: none
	Offset   int // -1: none
}

// SQL is s's text.
func (s *Select) SQL() string {
	var b strings.Builder
	if len(s.With) > 0 {
		b.WriteString("WITH ")
		for i, c := range s.With {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s (%s) AS (%s)", c.Name, strings.Join(c.Cols, ", "), c.Q.SQL())
		}
		b.WriteString(" ")
	}
	b.WriteString(s.coreSQL())
	if s.Right != nil {
		b.WriteString(" " + s.Op + " ")
		r := s.Right.SQL()
		if s.Right.Right != nil || len(s.Right.Order) > 0 || s.Right.Limit >= 0 || s.Right.Offset >= 0 || len(s.Right.With) > 0 {
			r = "(" + r + ")"
		}
		b.WriteString(r)
	}
	if len(s.Order) > 0 {
		b.WriteString(" ORDER BY ")
		for i, o := range s.Order {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case o.ByName && o.Item.Alias != "":
				b.WriteString(o.Item.Alias)
			case o.ByName && o.Item.E.Col != "" && s.Right == nil:
				b.WriteString(o.Item.E.SQL())
			default:
				fmt.Fprintf(&b, "%d", s.itemIndex(o.Item)+1)
			}
			if o.Desc {
				b.WriteString(" DESC")
			}
			if o.Nulls != "" {
				b.WriteString(" " + o.Nulls)
			}
		}
	}
	if s.Limit >= 0 {
		fmt.Fprintf(&b, " LIMIT %d", s.Limit)
	}
	if s.Offset >= 0 {
		fmt.Fprintf(&b, " OFFSET %d", s.Offset)
	}
	return b.String()
}

// coreSQL is SELECT … HAVING, without set operation, ORDER BY or LIMIT.
func (s *Select) coreSQL() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	for i, it := range s.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.E.SQL())
		if it.Alias != "" {
			b.WriteString(" AS " + it.Alias)
		}
	}
	if len(s.From) > 0 {
		b.WriteString(" FROM ")
		for i, f := range s.From {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.SQL())
		}
	}
	if s.Where != nil {
		b.WriteString(" WHERE " + s.Where.SQL())
	}
	if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		var gs []string
		for _, g := range s.GroupBy {
			gs = append(gs, g.SQL())
		}
		switch s.Grouping {
		case "":
			b.WriteString(strings.Join(gs, ", "))
		case "GROUPING SETS":
			// Each expression alone, all of them, and the empty set.
			var sets []string
			for _, g := range gs {
				sets = append(sets, "("+g+")")
			}
			sets = append(sets, "("+strings.Join(gs, ", ")+")", "()")
			b.WriteString("GROUPING SETS (" + strings.Join(sets, ", ") + ")")
		default:
			b.WriteString(s.Grouping + " (" + strings.Join(gs, ", ") + ")")
		}
	}
	if s.Having != nil {
		b.WriteString(" HAVING " + s.Having.SQL())
	}
	return b.String()
}

func (s *Select) itemIndex(it *Item) int {
	for i, x := range s.Items {
		if x == it {
			return i
		}
	}
	panic("order key names an item not in the select list")
}

// orderCols are the 0-based output columns ORDER BY names, in order.
func (s *Select) orderCols() []int {
	var cols []int
	for _, o := range s.Order {
		cols = append(cols, s.itemIndex(o.Item))
	}
	return cols
}
