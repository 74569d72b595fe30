package difffuzz

// cloner deep-copies a query, keeping shared expressions shared (a GROUP
// BY expression and the select item that repeats it are one node, so that
// the reducer changes both at once).
type cloner struct {
	exprs map[*Expr]*Expr
	items map[*Item]*Item
}

func cloneSelect(q *Select) *Select {
	c := &cloner{exprs: map[*Expr]*Expr{}, items: map[*Item]*Item{}}
	return c.sel(q)
}

func (c *cloner) sel(q *Select) *Select {
	if q == nil {
		return nil
	}
	n := *q
	n.With = nil
	for _, w := range q.With {
		n.With = append(n.With, &CTE{Name: w.Name, Cols: append([]string(nil), w.Cols...), Q: c.sel(w.Q)})
	}
	n.Items = nil
	for _, it := range q.Items {
		ni := &Item{E: c.expr(it.E), Alias: it.Alias}
		c.items[it] = ni
		n.Items = append(n.Items, ni)
	}
	n.From = nil
	for _, f := range q.From {
		n.From = append(n.From, c.from(f))
	}
	n.Where = c.expr(q.Where)
	n.GroupBy = nil
	for _, g := range q.GroupBy {
		n.GroupBy = append(n.GroupBy, c.expr(g))
	}
	n.Having = c.expr(q.Having)
	n.Right = c.sel(q.Right)
	n.Order = nil
	for _, o := range q.Order {
		no := *o
		no.Item = c.items[o.Item]
		n.Order = append(n.Order, &no)
	}
	return &n
}

func (c *cloner) from(f *From) *From {
	if f == nil {
		return nil
	}
	n := *f
	n.Sub = c.sel(f.Sub)
	n.Left = c.from(f.Left)
	n.Right = c.from(f.Right)
	n.On = c.expr(f.On)
	n.Using = append([]string(nil), f.Using...)
	return &n
}

func (c *cloner) expr(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	if n, ok := c.exprs[e]; ok {
		return n
	}
	n := *e
	c.exprs[e] = &n
	n.Parts = append([]string(nil), e.Parts...)
	n.Args = nil
	for _, a := range e.Args {
		n.Args = append(n.Args, c.expr(a))
	}
	n.Sub = c.sel(e.Sub)
	return &n
}
