package exec

import (
	"context"
	"fmt"
	"strings"
)

// EXPLAIN for the operators of this package.

// ScanDetails are the lines EXPLAIN shows for a scan from the table's
// metadata: the snapshot, the files pruning keeps and, when op (the
// built scan, or nil) has run, the row groups and tail rows it read.
// Files are planned with ctx, the statement's context, when op has not
// run.
func ScanDetails(ctx context.Context, spec TableScan, op Operator) []string {
	s, ok := op.(*scanOp)
	if !ok {
		s = &scanOp{spec: spec}
	}
	var d []string
	st := s.Stats
	if !s.opened && s.spec.Table.CurrentSnapshot() != nil {
		var err error
		if st, err = s.spec.Store.PlanScan(ctx, s.spec.Table, s.expiryFilter()); err != nil {
			return append(d, "Files: planning failed: "+err.Error())
		}
	}
	if snap := s.spec.Table.CurrentSnapshot(); snap != nil {
		d = append(d, fmt.Sprintf("Snapshot: %d", snap.SnapshotID))
	}
	d = append(d, fmt.Sprintf("Files: %d of %d (%d pruned), Partitions: %d, Rows: %d, Bytes: %d",
		st.FilesScanned, st.FilesTotal, st.FilesTotal-st.FilesScanned, st.Partitions, st.Rows, st.Bytes))
	if n := s.rg.Total.Load(); n > 0 {
		sk := s.rg.Skipped.Load()
		d = append(d, fmt.Sprintf("Row Groups Decoded: %d of %d (%d skipped by statistics)", n-sk, n, sk))
	}
	if s.spec.Tail != nil {
		if s.opened {
			d = append(d, fmt.Sprintf("Write Log Tail: %d rows", s.tailRows))
		} else {
			d = append(d, "Write Log Tail: read after the files")
		}
	}
	return d
}
func (s *scanOp) Inputs() []*Operator { return nil }

func (w *widenOp) Explain() Explained  { return Explained{Name: "Widen"} }
func (w *widenOp) Inputs() []*Operator { return []*Operator{&w.in} }

func (f *filterOp) Explain() Explained {
	return Explained{Name: "Filter", Details: []string{"Filter: " + f.pred.String()}}
}
func (f *filterOp) Inputs() []*Operator { return []*Operator{&f.in} }

func (p *projectOp) Explain() Explained {
	return Explained{Name: "Project", Details: []string{"Output: " + ExprList(p.exprs)}}
}
func (p *projectOp) Inputs() []*Operator { return []*Operator{&p.in} }

func (l *limitOp) Explain() Explained {
	var d []string
	if l.limit >= 0 {
		d = append(d, fmt.Sprintf("Limit: %d", l.limit))
	}
	if l.offset > 0 {
		d = append(d, fmt.Sprintf("Offset: %d", l.offset))
	}
	return Explained{Name: "Limit", Details: d}
}
func (l *limitOp) Inputs() []*Operator { return []*Operator{&l.in} }

func (v *valuesOp) Explain() Explained {
	return Explained{Name: fmt.Sprintf("Values Scan (%d rows)", len(v.rows))}
}
func (v *valuesOp) Inputs() []*Operator { return nil }

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
	}
	if k.NullsFirst != k.Desc {
		if k.NullsFirst {
			s += " NULLS FIRST"
		} else {
			s += " NULLS LAST"
		}
	}
	return s
}

func (s *sortOp) Explain() Explained {
	ex := Explained{Name: "Sort", Details: []string{"Sort Key: " + ExprList(s.keys)}}
	if s.topN > 0 {
		ex.Name = "Top-N Sort"
		ex.Details = append(ex.Details, fmt.Sprintf("Keeps: %d rows", s.topN))
	}
	return ex
}
func (s *sortOp) Inputs() []*Operator { return []*Operator{&s.in} }

var joinNames = [...]string{InnerJoin: "Inner", LeftJoin: "Left", RightJoin: "Right", FullJoin: "Full"}

func (j *hashJoin) Explain() Explained {
	conds := make([]string, len(j.lkeys))
	for i := range j.lkeys {
		conds[i] = j.lkeys[i].String() + " = " + j.rkeys[i].String()
	}
	return Explained{Name: "Hash Join", Details: []string{"Hash Cond: " + strings.Join(conds, " AND "), "Hashed: the second input"}}
}
func (j *hashJoin) Inputs() []*Operator { return []*Operator{&j.left, &j.right} }

func (j *nestedLoopJoin) Explain() Explained {
	ex := Explained{Name: "Nested Loop " + joinNames[j.kind] + " Join"}
	if j.on != nil {
		ex.Details = []string{"Join Filter: " + j.on.String()}
	}
	return ex
}
func (j *nestedLoopJoin) Inputs() []*Operator { return []*Operator{&j.left, &j.right} }

func (r *recursiveOp) Explain() Explained {
	name := "Recursive Union All"
	if r.distinct {
		name = "Recursive Union"
	}
	return Explained{Name: name, Details: []string{"Recursive Term: planned for each iteration over the working table"}}
}
func (r *recursiveOp) Inputs() []*Operator { return []*Operator{&r.init} }

func (b *batchesOp) Explain() Explained  { return Explained{Name: "WorkTable Scan"} }
func (b *batchesOp) Inputs() []*Operator { return nil }

func (f *firstOfRunsOp) Explain() Explained {
	return Explained{Name: "Unique", Details: []string{fmt.Sprintf("Distinct On: columns %v", f.keys)}}
}
func (f *firstOfRunsOp) Inputs() []*Operator { return []*Operator{&f.in} }

func (r *spoolReader) Explain() Explained {
	return Explained{Name: fmt.Sprintf("Spool Reader (%d readers)", r.s.readers)}
}

// Inputs shows the spooled input under its first reader only.
func (r *spoolReader) Inputs() []*Operator {
	if r.s.first == r {
		return []*Operator{&r.s.in}
	}
	return nil
}

func (l *tiesOp) Explain() Explained {
	return Explained{Name: "Limit", Details: []string{fmt.Sprintf("Limit: %d WITH TIES", l.limit), fmt.Sprintf("Offset: %d", l.offset)}}
}
func (l *tiesOp) Inputs() []*Operator { return []*Operator{&l.in} }

func (a *applyOp) Explain() Explained {
	ex := Explained{Name: "Nested Loop " + joinNames[a.kind] + " Join", Details: []string{"Inner: planned again for each outer row (LATERAL)"}}
	if a.on != nil {
		ex.Details = append(ex.Details, "Join Filter: "+a.on.String())
	}
	return ex
}
func (a *applyOp) Inputs() []*Operator { return []*Operator{&a.left} }
