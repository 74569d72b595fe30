package window

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/spill"
)

// byPartition runs the window functions a partition at a time when the
// input does not fit the query's memory budget: the input is sorted by
// the partition keys (spilling, see exec.Sorter), and each partition is
// computed on its own as it comes. Only a partition must fit in memory.
// This needs every window to have the same PARTITION BY, as the order of
// the output then is the one computing the whole input would give.
type byPartition struct {
	sorter *exec.Sorter
	acct   *mem.Account
	offs   []offsets
	part   []arrow.RecordBatch // rows of the partition being read
	key    []byte              // its key
	queue  []arrow.RecordBatch // output ready
	ended  bool
}

// readAll reads the whole input while the budget holds it. When it does
// not, and the windows allow it, it returns nil and sets o.parts.
func (o *op) readAll(ctx context.Context, offs []offsets) (arrow.RecordBatch, error) {
	acct := mem.FromContext(ctx).Account()
	o.acct = acct
	var recs []arrow.RecordBatch
	defer func() { releaseAllRecs(recs) }()
	for {
		rec, err := o.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
		// The sorts and the function results take about as much again.
		if acct.TryGrow(2 * spill.Size(rec)) {
			continue
		}
		keys, ok := o.commonPartition()
		if !ok {
			return nil, acct.Budget().OutOfMemory("window", 2*spill.Size(rec))
		}
		acct.Clear()
		p := &byPartition{sorter: exec.NewSorter(ctx, o.ec, o.in.Types(), keys), acct: acct, offs: offs}
		o.parts = p
		for _, r := range recs {
			r.Retain()
			if err := p.sorter.Add(ctx, r); err != nil {
				return nil, err
			}
		}
		for {
			rec, err := o.in.Next(ctx)
			if err == nil && rec != nil {
				err = p.sorter.Add(ctx, rec)
			}
			if err != nil {
				return nil, err
			}
			if rec == nil {
				break
			}
		}
		return nil, p.sorter.Sort(ctx)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	return exec.Concat(exec.Schema(o.in.Types()), recs)
}

// commonPartition is the PARTITION BY every window shares, as sort keys.
func (o *op) commonPartition() ([]exec.SortKey, bool) {
	first := o.specs[0].Partition
	if len(first) == 0 {
		return nil, false
	}
	for _, s := range o.specs[1:] {
		if exec.ExprList(s.Partition) != exec.ExprList(first) {
			return nil, false
		}
	}
	keys := make([]exec.SortKey, len(first))
	for i, p := range first {
		keys[i] = exec.SortKey{Expr: p}
	}
	return keys, true
}

// next is the next output batch of the partition-at-a-time run.
func (p *byPartition) next(ctx context.Context, o *op) (arrow.RecordBatch, error) {
	for len(p.queue) == 0 {
		if p.ended {
			return nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := p.sorter.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			p.ended = true
			if err := p.flush(ctx, o); err != nil {
				return nil, err
			}
			continue
		}
		err = p.split(ctx, o, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	out := p.queue[0]
	p.queue = p.queue[1:]
	return out, nil
}

// split adds a sorted batch's rows to the partitions they belong to,
// computing each partition that ends in it.
func (p *byPartition) split(ctx context.Context, o *op, rec arrow.RecordBatch) error {
	part := o.specs[0].Partition
	cols := make([]arrow.Array, len(part))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	writers := make([]func([]byte, int) []byte, len(part))
	for i, e := range part {
		a, err := e.Eval(o.ec, rec)
		if err != nil {
			return err
		}
		cols[i] = a
		writers[i] = exec.KeyWriter(e.Type(), a)
	}
	var buf []byte
	start := 0
	n := int(rec.NumRows())
	for r := 0; r < n; r++ {
		buf = buf[:0]
		for _, w := range writers {
			buf = w(buf, r)
		}
		if p.key != nil && bytes.Equal(buf, p.key) {
			continue
		}
		if r > start {
			if err := p.add(rec.NewSlice(int64(start), int64(r))); err != nil {
				return err
			}
		}
		if p.key != nil {
			if err := p.flush(ctx, o); err != nil {
				return err
			}
		}
		p.key, start = append(p.key[:0], buf...), r
	}
	if n > start {
		return p.add(rec.NewSlice(int64(start), int64(n)))
	}
	return nil
}

func (p *byPartition) add(rec arrow.RecordBatch) error {
	p.part = append(p.part, rec)
	return p.acct.Grow(2*spill.Size(rec), "window partition")
}

// flush computes the partition read so far and queues its rows.
func (p *byPartition) flush(ctx context.Context, o *op) error {
	if len(p.part) == 0 {
		return nil
	}
	all, err := exec.Concat(exec.Schema(o.in.Types()), p.part)
	releaseAllRecs(p.part)
	p.part = nil
	p.acct.Clear()
	if err != nil {
		return err
	}
	out, err := o.compute(ctx, all, p.offs)
	if err != nil {
		return err
	}
	for lo := int64(0); lo < out.NumRows(); lo += exec.BatchSize {
		p.queue = append(p.queue, out.NewSlice(lo, min(lo+exec.BatchSize, out.NumRows())))
	}
	out.Release()
	return nil
}

func (p *byPartition) close() {
	releaseAllRecs(p.part)
	releaseAllRecs(p.queue)
	p.part, p.queue = nil, nil
	p.sorter.Close()
	p.acct.Clear()
}

func releaseAllRecs(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
