package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/spill"
)

// buildRowCost estimates the hash table's memory per build row beyond the
// row itself: a map entry and its slot in a slice of row numbers.
const buildRowCost = 48

// readBuild reads the build (right) input into one batch, holding its
// memory in h.acct. When the budget cannot hold it, the join becomes a
// grace hash join (h.grace): both inputs are split by key hash into
// files, and each pair of files is joined on its own.
func (h *hashJoin) readBuild(ctx context.Context) (arrow.RecordBatch, error) {
	h.acct = budgetOf(ctx).Account()
	var recs []arrow.RecordBatch
	defer func() { releaseAll(recs) }()
	for {
		rec, err := h.right.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		recs = append(recs, rec)
		if !h.acct.TryGrow(spill.Size(rec) + buildRowCost*rec.NumRows()) {
			g, err := h.spillBuild(ctx, recs)
			recs = nil
			if err != nil {
				return nil, err
			}
			h.grace = g
			return nil, nil
		}
	}
	if len(recs) == 0 {
		return nil, nil
	}
	return Concat(Schema(h.right.Types()), recs)
}

// graceJoin runs a hash join one partition at a time: the rows of both
// inputs whose keys hash alike, in a pair of spill files.
type graceJoin struct {
	h           *hashJoin
	left, right []*spill.File
	part        int
	sub         Operator // the join of partition part, nil between them
}

// spillBuild splits the build rows read so far (recs, released here),
// the rest of the build input and then the whole probe input into
// partition files.
func (h *hashJoin) spillBuild(ctx context.Context, recs []arrow.RecordBatch) (*graceJoin, error) {
	defer func() { releaseAll(recs) }()
	if h.depth >= maxSpillLevel {
		return nil, h.acct.Budget().OutOfMemory("hash join", h.acct.Used())
	}
	g := &graceJoin{h: h}
	var err error
	if g.right, err = spillFiles(ctx, spillFanout); err != nil {
		return nil, err
	}
	if g.left, err = spillFiles(ctx, spillFanout); err != nil {
		g.close()
		return nil, err
	}
	write := func(rec arrow.RecordBatch, keys []expr.Expr, files []*spill.File) error {
		key, release, err := h.keyFunc(rec, keys)
		if err != nil {
			return err
		}
		defer release()
		return partitionBatch(ctx, rec, key, h.depth, files)
	}
	for _, rec := range recs {
		if err := write(rec, h.rkeys, g.right); err != nil {
			g.close()
			return nil, err
		}
	}
	releaseAll(recs)
	recs = nil
	h.acct.Clear()
	for _, side := range []struct {
		in    Operator
		keys  []expr.Expr
		files []*spill.File
	}{{h.right, h.rkeys, g.right}, {h.left, h.lkeys, g.left}} {
		for {
			rec, err := side.in.Next(ctx)
			if err == nil && rec != nil {
				err = write(rec, side.keys, side.files)
				rec.Release()
			}
			if err != nil {
				g.close()
				return nil, err
			}
			if rec == nil {
				break
			}
		}
	}
	if h.depth > 0 && !splits(g.right) {
		// Every build row has one key (or one hash): splitting again
		// cannot make it fit.
		var size int64
		for _, f := range g.right {
			size += f.Bytes()
		}
		g.close()
		return nil, h.acct.Budget().OutOfMemory("hash join", size)
	}
	return g, nil
}

// splits reports whether the rows went to more than one file.
func splits(files []*spill.File) bool {
	used := 0
	for _, f := range files {
		if f.Rows() > 0 {
			used++
		}
	}
	return used > 1
}

func (g *graceJoin) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if g.sub != nil {
			out, err := g.sub.Next(ctx)
			if err != nil || out != nil {
				return out, err
			}
			err = g.sub.Close()
			g.sub = nil
			g.left[g.part].Remove()
			g.right[g.part].Remove()
			g.part++
			if err != nil {
				return nil, err
			}
		}
		if g.part >= len(g.left) {
			return nil, nil
		}
		if g.empty(g.part) {
			g.left[g.part].Remove()
			g.right[g.part].Remove()
			g.part++
			continue
		}
		h := g.h
		sub := NewHashJoin(h.kind, newSpillSource(g.left[g.part], h.left.Types()),
			newSpillSource(g.right[g.part], h.right.Types()), h.lkeys, h.rkeys, h.extra, h.ec).(*hashJoin)
		sub.depth = h.depth + 1
		g.sub = sub
		if err := sub.Open(ctx); err != nil {
			return nil, err
		}
	}
}

// empty reports a partition whose join has no rows: no rows on the side
// every output row needs.
func (g *graceJoin) empty(p int) bool {
	l, r := g.left[p].Rows() == 0, g.right[p].Rows() == 0
	switch g.h.kind {
	case InnerJoin:
		return l || r
	case LeftJoin:
		return l
	case RightJoin:
		return r
	}
	return l && r
}

func (g *graceJoin) close() {
	if g.sub != nil {
		g.sub.Close()
		g.sub = nil
	}
	removeFiles(g.left)
	removeFiles(g.right)
}
