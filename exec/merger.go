package exec

import (
	"container/heap"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/spill"
	"github.com/loamdb/loam/types"
)

// merger merges sorted runs whose batches carry their sort keys' values
// in the columns after the first nCols. Ties go to the earlier run, so
// a merge of runs written in input order is stable.
type merger struct {
	keys  []SortKey
	nCols int
	runs  []*mergeRun
	heap  runHeap
}

// mergeRun is one run being read: its current batch and row.
type mergeRun struct {
	i    int
	r    *spill.Reader
	rec  arrow.RecordBatch
	keys [][]types.Datum // per key, per row of rec
	pos  int
	// rows of rec taken into the output batch being built
	taken []int32
}

func newMerger(ctx context.Context, files []*spill.File, nCols int, keys []SortKey) (*merger, error) {
	m := &merger{keys: keys, nCols: nCols}
	m.heap.m = m
	for i, f := range files {
		r, err := f.Reader()
		if err != nil {
			m.close()
			return nil, err
		}
		run := &mergeRun{i: i, r: r}
		m.runs = append(m.runs, run)
		ok, err := m.load(run)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.heap.runs = append(m.heap.runs, run)
		}
	}
	heap.Init(&m.heap)
	return m, nil
}

// load reads run's next batch, reporting false at its end.
func (m *merger) load(run *mergeRun) (bool, error) {
	if run.rec != nil {
		run.rec.Release()
		run.rec = nil
	}
	rec, err := run.r.Next()
	if err != nil || rec == nil {
		return false, err
	}
	run.rec, run.pos = rec, 0
	run.keys = make([][]types.Datum, len(m.keys))
	n := int(rec.NumRows())
	for k, key := range m.keys {
		t, col := key.Expr.Type(), rec.Column(m.nCols+k)
		ds := make([]types.Datum, n)
		for r := range ds {
			if col.IsNull(r) {
				ds[r] = types.NullOf(t)
			} else {
				ds[r] = types.DatumAt(t, col, r)
			}
		}
		run.keys[k] = ds
	}
	return true, nil
}

// less orders the current rows of two runs.
func (m *merger) less(a, b *mergeRun) bool {
	for k, key := range m.keys {
		x, y := a.keys[k][a.pos], b.keys[k][b.pos]
		if x.Null || y.Null {
			if x.Null == y.Null {
				continue
			}
			// NULLs go last unless NULLS FIRST.
			return x.Null == key.NullsFirst
		}
		c := expr.CompareDatums(x, y)
		if key.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.i < b.i
}

// next is the next batch of merged rows (all columns), nil at the end.
// A batch ends early where a run needs its next batch, so that every row
// of a batch comes from batches in memory.
func (m *merger) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var order []*mergeRun
	var exhausted *mergeRun
	for len(order) < BatchSize && len(m.heap.runs) > 0 {
		run := m.heap.runs[0]
		run.taken = append(run.taken, int32(run.pos))
		order = append(order, run)
		run.pos++
		if run.pos < int(run.rec.NumRows()) {
			heap.Fix(&m.heap, 0)
			continue
		}
		heap.Pop(&m.heap)
		exhausted = run
		break
	}
	if len(order) == 0 {
		return nil, nil
	}
	out, err := m.assemble(ctx, order)
	if err != nil {
		return nil, err
	}
	if exhausted != nil {
		ok, err := m.load(exhausted)
		if err != nil {
			out.Release()
			return nil, err
		}
		if ok {
			heap.Push(&m.heap, exhausted)
		}
	}
	return out, nil
}

// assemble gathers the rows each run gave, in the order given.
func (m *merger) assemble(ctx context.Context, order []*mergeRun) (arrow.RecordBatch, error) {
	var parts []arrow.RecordBatch
	defer func() { releaseAll(parts) }()
	offset := map[*mergeRun]int32{}
	var n int32
	for _, run := range m.runs {
		if len(run.taken) == 0 {
			continue
		}
		p, err := TakeRows(ctx, run.rec, run.taken)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		offset[run] = n
		n += int32(len(run.taken))
		run.taken = run.taken[:0]
	}
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	all, err := Concat(parts[0].Schema(), parts)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	perm := make([]int32, len(order))
	for i, run := range order {
		perm[i] = offset[run]
		offset[run]++
	}
	return TakeRows(ctx, all, perm)
}

func (m *merger) close() {
	for _, run := range m.runs {
		if run.rec != nil {
			run.rec.Release()
			run.rec = nil
		}
		run.r.Close()
	}
	m.runs, m.heap.runs = nil, nil
}

type runHeap struct {
	m    *merger
	runs []*mergeRun
}

func (h *runHeap) Len() int           { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool { return h.m.less(h.runs[i], h.runs[j]) }
func (h *runHeap) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)         { h.runs = append(h.runs, x.(*mergeRun)) }
func (h *runHeap) Pop() any {
	r := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return r
}
