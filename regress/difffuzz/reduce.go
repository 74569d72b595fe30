package difffuzz

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Reduction budget: a failure is cut down greedily, each cut checked by
// running the case again on both sides.
const (
	reduceTries = 3000
	reduceTime  = 4 * time.Minute
)

// reducer shrinks one failing case while it fails with the same Sig.
type reducer struct {
	f        *Fuzzer
	sig      string
	tries    int
	deadline time.Time
	s        *Schema // the current (smallest failing) tables and rows
	q        *Select
	setUp    *Schema // the tables as they are now on both sides
}

// reduce cuts q and s down and returns the failure with its record. The
// tables on both sides are left in an unknown state.
func (f *Fuzzer) reduce(ctx context.Context, s *Schema, q *Select, v Verdict) Failure {
	fail := Failure{Verdict: v, Query: q.SQL()}
	r := &reducer{f: f, sig: v.Sig, deadline: time.Now().Add(reduceTime), s: s.clone(), q: cloneSelect(q)}
	if !r.fails(r.s, r.q) {
		fail.Record = "# not reproduced on fresh tables (depends on how the rows were loaded, or on the session)\n" +
			r.record(ctx, s, q, v)
		return fail
	}
	for progress := true; progress && r.budget(); {
		progress = r.query()
		progress = r.rows() || progress
		progress = r.columns() || progress
	}
	fail.Record = r.record(ctx, r.s, r.q, v)
	return fail
}

func (r *reducer) budget() bool {
	return r.tries < reduceTries && time.Now().Before(r.deadline)
}

// fails loads s (unless it is what the sides hold already), runs q and
// says whether it still fails the same way.
func (r *reducer) fails(s *Schema, q *Select) bool {
	ctx := context.Background()
	r.tries++
	if r.setUp != s {
		if err := r.f.load(ctx, s); err != nil {
			r.setUp = nil
			return false
		}
		r.setUp = s
	}
	v, _ := r.f.check(ctx, q)
	if strings.HasPrefix(v.Sig, "lost") {
		// The reconnect lost nothing on PostgreSQL's side, but Loam's
		// tables may hold anything now.
		r.setUp = nil
	}
	return v.Sig == r.sig
}

// query tries every single cut of the query, keeping those that still
// fail, until none does.
func (r *reducer) query() bool {
	any := false
	for i := 0; r.budget(); {
		c := cloneSelect(r.q)
		ed := &editor{target: i, seen: map[*Expr]bool{}}
		ed.sel(c, true)
		if !ed.done {
			break
		}
		if r.fails(r.s, c) {
			r.q = c
			any = true
			continue // the same index now names the next cut
		}
		i++
	}
	return any
}

// rows drops runs of rows, halving the run length, then tries the rows
// all in the log (no CHECKPOINT).
func (r *reducer) rows() bool {
	any := false
	for ti := range r.s.Tables {
		for seg := 0; seg < 2; seg++ {
			get := func(s *Schema) *[]Row {
				if seg == 0 {
					return &s.Tables[ti].Base
				}
				return &s.Tables[ti].Log
			}
			for chunk := (len(*get(r.s)) + 1) / 2; chunk >= 1; chunk /= 2 {
				for i := 0; i < len(*get(r.s)) && r.budget(); {
					c := r.s.clone()
					rows := get(c)
					end := min(i+chunk, len(*rows))
					*rows = append(append([]Row(nil), (*rows)[:i]...), (*rows)[end:]...)
					if r.fails(c, r.q) {
						r.s, any = c, true
						continue
					}
					i += chunk
				}
			}
		}
	}
	c := r.s.clone()
	moved := false
	for _, t := range c.Tables {
		if len(t.Base) > 0 {
			t.Log, t.Base, moved = append(t.Base, t.Log...), nil, true
		}
	}
	if moved && r.budget() && r.fails(c, r.q) {
		r.s, any = c, true
	}
	return any
}

// columns drops a column, or a whole table, at a time.
func (r *reducer) columns() bool {
	any := false
	for ti := 0; ti < len(r.s.Tables) && r.budget(); ti++ {
		if len(r.s.Tables) > 1 {
			c := r.s.clone()
			c.Tables = append(c.Tables[:ti:ti], c.Tables[ti+1:]...)
			if r.fails(c, r.q) {
				r.s, any = c, true
				ti--
				continue
			}
		}
		for ci := 0; ci < len(r.s.Tables[ti].Cols) && len(r.s.Tables[ti].Cols) > 1 && r.budget(); {
			c := r.s.clone()
			t := c.Tables[ti]
			t.Cols = append(t.Cols[:ci:ci], t.Cols[ci+1:]...)
			cut := func(rows []Row) []Row {
				out := make([]Row, len(rows))
				for i, row := range rows {
					out[i] = append(row[:ci:ci], row[ci+1:]...)
				}
				return out
			}
			t.Base, t.Log = cut(t.Base), cut(t.Log)
			if r.fails(c, r.q) {
				r.s, any = c, true
				continue
			}
			ci++
		}
	}
	return any
}

// load replaces the tables on both sides with s's: rows in Base are
// checkpointed into files on Loam, rows in Log stay in its write log.
func (f *Fuzzer) load(ctx context.Context, s *Schema) error {
	if err := f.createTables(ctx, s); err != nil {
		return err
	}
	for _, side := range []*Side{f.loam, f.pg} {
		for _, t := range s.Tables {
			if sql := t.InsertSQL(t.Base); sql != "" {
				if err := side.Exec(ctx, sql); err != nil {
					return err
				}
			}
		}
		if side == f.loam && s.hasBase() {
			if err := side.Exec(ctx, "CHECKPOINT"); err != nil {
				return err
			}
		}
		for _, t := range s.Tables {
			if sql := t.InsertSQL(t.Log); sql != "" {
				if err := side.Exec(ctx, sql); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *Schema) hasBase() bool {
	for _, t := range s.Tables {
		if len(t.Base) > 0 {
			return true
		}
	}
	return false
}

// editor applies the target-th of all the single cuts a query allows,
// counting them in a fixed walk order (so that the same index names the
// same cut on a fresh clone).
type editor struct {
	target int
	n      int
	done   bool
	seen   map[*Expr]bool
}

func (ed *editor) hit() bool {
	if ed.done {
		return false
	}
	ed.n++
	if ed.n-1 == ed.target {
		ed.done = true
		return true
	}
	return false
}

func (ed *editor) sel(q *Select, top bool) {
	if q == nil || ed.done {
		return
	}
	for i := range q.With {
		if ed.hit() {
			q.With = append(q.With[:i:i], q.With[i+1:]...)
			return
		}
	}
	if q.Right != nil && ed.hit() {
		q.Right, q.Op = nil, ""
		return
	}
	if q.Distinct && ed.hit() {
		q.Distinct = false
		return
	}
	if len(q.Items) > 1 {
		for i := range q.Items {
			if ed.hit() {
				q.dropItem(i)
				return
			}
		}
	}
	if len(q.From) > 1 {
		for i := range q.From {
			if ed.hit() {
				q.From = append(q.From[:i:i], q.From[i+1:]...)
				return
			}
		}
	}
	if q.Where != nil && ed.hit() {
		q.Where = nil
		return
	}
	if q.Grouping != "" && ed.hit() {
		q.Grouping = ""
		return
	}
	if len(q.GroupBy) > 1 {
		for i := range q.GroupBy {
			if ed.hit() {
				q.GroupBy = append(q.GroupBy[:i:i], q.GroupBy[i+1:]...)
				return
			}
		}
	}
	if len(q.GroupBy) > 0 && ed.hit() {
		q.GroupBy, q.Grouping = nil, ""
		return
	}
	if q.Having != nil && ed.hit() {
		q.Having = nil
		return
	}
	for i := range q.Order {
		if ed.hit() {
			q.Order = append(q.Order[:i:i], q.Order[i+1:]...)
			return
		}
	}
	if q.Limit >= 0 && ed.hit() {
		q.Limit = -1
		return
	}
	if q.Offset >= 0 && ed.hit() {
		q.Offset = -1
		return
	}
	for _, w := range q.With {
		ed.sel(w.Q, false)
	}
	for _, it := range q.Items {
		ed.expr(it.E)
	}
	for _, f := range q.From {
		ed.from(f)
	}
	ed.expr(q.Where)
	for _, g := range q.GroupBy {
		ed.expr(g)
	}
	ed.expr(q.Having)
	ed.sel(q.Right, false)
}

// dropItem removes output column i, from the right sides of a set
// operation too, and the ORDER BY keys on it.
func (q *Select) dropItem(i int) {
	it := q.Items[i]
	var order []*OrderKey
	for _, o := range q.Order {
		if o.Item != it {
			order = append(order, o)
		}
	}
	q.Order = order
	for s := q; s != nil; s = s.Right {
		if i < len(s.Items) {
			s.Items = append(s.Items[:i:i], s.Items[i+1:]...)
		}
	}
}

func (ed *editor) from(f *From) {
	if f == nil || ed.done {
		return
	}
	if f.Join != "" {
		if ed.hit() {
			*f = *f.Left
			return
		}
		if ed.hit() {
			*f = *f.Right
			return
		}
		if f.Join != "JOIN" && f.Join != "CROSS JOIN" && ed.hit() {
			f.Join = "JOIN"
			return
		}
		if (f.On != nil || len(f.Using) > 0) && ed.hit() {
			f.Join, f.On, f.Using = "CROSS JOIN", nil, nil
			return
		}
	}
	ed.from(f.Left)
	ed.from(f.Right)
	ed.expr(f.On)
	ed.sel(f.Sub, false)
}

func (ed *editor) expr(e *Expr) {
	if e == nil || ed.done || ed.seen[e] {
		return
	}
	ed.seen[e] = true
	if e.Sub != nil {
		ed.sel(e.Sub, false)
		return
	}
	for _, a := range e.Args {
		if a.K == e.K && a.Sub == nil && ed.hit() {
			*e = *a
			return
		}
	}
	if !e.Const && ed.hit() {
		*e = *constant(e.K, defaultLiteral(e.K))
		return
	}
	for _, a := range e.Args {
		ed.expr(a)
	}
}

// defaultLiteral is the simplest constant of kind k.
func defaultLiteral(k Kind) string {
	switch k {
	case KInt:
		// Not a bare 1: in GROUP BY that names the first output column.
		return "CAST(1 AS int4)"
	case KText:
		return "'a'"
	case KBool:
		return "true"
	}
	return fmt.Sprintf("CAST(NULL AS %s)", castName(k))
}
