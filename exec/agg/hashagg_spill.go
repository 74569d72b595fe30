package agg

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/spill"
)

// aggSpill lets a hash aggregation outgrow its memory budget as
// PostgreSQL's does: once no new group fits, rows of groups already in
// the table still update them, and rows of new groups go to spill files by
// key hash. The groups in memory are emitted first; then each file is
// aggregated on its own (splitting again if need be), so every group is
// whole in exactly one place. Any aggregate works this way, with no state
// to merge.
type aggSpill struct {
	acct  *mem.Account
	cost  int64 // memory per group, estimated
	full  bool  // no new group fits
	over  int64 // bytes held beyond the account (see hold)
	level int   // how many times these rows were split already
	files []*spill.File
	part  int
	sub   exec.Operator // the aggregation of files[part]
}

func (s *aggSpill) open(ctx context.Context, cost int64) {
	s.acct = mem.FromContext(ctx).Account()
	s.cost = cost
}

// admit reserves a new group's memory, reporting false when it does not
// fit (and no group will from then on).
func (s *aggSpill) admit() bool {
	if s.full {
		return false
	}
	if s.acct.TryGrow(s.cost) {
		return true
	}
	s.full = true
	return false
}

// divert writes the rows of rec that found no group (gid -1) to the spill
// files and returns the other rows (the caller's to release) with their
// gids. keyCols are the group keys evaluated over rec.
func (s *aggSpill) divert(ctx context.Context, h *hashAggOp, rec arrow.RecordBatch, gids []int32, keyCols []arrow.Array) (arrow.RecordBatch, []int32, error) {
	var keep, out []int32
	for r, g := range gids {
		if g < 0 {
			out = append(out, int32(r))
		} else {
			keep = append(keep, int32(r))
		}
	}
	if len(out) == 0 {
		rec.Retain()
		return rec, gids, nil
	}
	if s.files == nil {
		if s.level >= exec.MaxSpillLevel {
			return nil, nil, s.acct.Budget().OutOfMemory("hash aggregation", s.cost)
		}
		files, err := exec.SpillFiles(ctx, exec.SpillFanout)
		if err != nil {
			return nil, nil, err
		}
		s.files = files
	}
	spilled, err := exec.TakeRows(ctx, rec, out)
	if err != nil {
		return nil, nil, err
	}
	writers := make([]func([]byte, int) []byte, len(keyCols))
	for i, a := range keyCols {
		writers[i] = exec.KeyWriter(h.groupBy[i].Type(), a)
	}
	var buf []byte
	key := func(r int) ([]byte, bool) {
		buf = buf[:0]
		for _, w := range writers {
			buf = w(buf, int(out[r]))
		}
		return buf, true
	}
	err = exec.PartitionBatch(ctx, spilled, key, s.level, s.files)
	spilled.Release()
	if err != nil {
		return nil, nil, err
	}
	kept, err := exec.TakeRows(ctx, rec, keep)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range keep {
		gids[i] = gids[r]
	}
	return kept, gids[:len(keep)], nil
}

// first is the aggregation's first output: the groups in memory. With
// rows spilled, it lets go of them before the files are read.
func (s *aggSpill) first(ctx context.Context, h *hashAggOp) (arrow.RecordBatch, error) {
	out, err := h.emit()
	if err != nil || s.files == nil {
		return out, err
	}
	h.groups, h.strGroups, h.keys, h.states, h.seen, h.seenFix = nil, nil, nil, nil, nil, nil
	s.acct.Clear()
	return out, nil
}

// next is the output of the spilled rows, a file at a time.
func (s *aggSpill) next(ctx context.Context, h *hashAggOp) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.sub != nil {
			out, err := s.sub.Next(ctx)
			if err != nil || out != nil {
				return out, err
			}
			err = s.sub.Close()
			s.sub = nil
			s.files[s.part].Remove()
			s.part++
			if err != nil {
				return nil, err
			}
		}
		if s.part >= len(s.files) {
			return nil, nil
		}
		if s.files[s.part].Rows() == 0 {
			s.files[s.part].Remove()
			s.part++
			continue
		}
		sub := NewHashAgg(exec.NewSpillSource(s.files[s.part], h.in.Types()), h.groupBy, h.aggs, h.ec).(*hashAggOp)
		sub.spill.level = s.level + 1
		s.sub = sub
		if err := sub.Open(ctx); err != nil {
			return nil, err
		}
	}
}

func (s *aggSpill) close() {
	if s.sub != nil {
		s.sub.Close()
		s.sub = nil
	}
	exec.RemoveSpillFiles(s.files)
	s.files = nil
	if s.acct != nil {
		s.acct.Clear()
	}
}

// hold reserves n bytes for the values DISTINCT has seen, which stay with
// their groups. When they do not fit, no new group is admitted (the rows
// of new groups spill); the groups in memory may still overrun the budget
// by as much again, beyond which the query fails with 53200.
func (s *aggSpill) hold(n int64) error {
	if n == 0 || s.acct == nil || s.acct.TryGrow(n) {
		return nil
	}
	s.full = true
	s.over += n
	if lim := s.acct.Budget().Limit(); lim > 0 && s.over > lim {
		return s.acct.Budget().OutOfMemory("hash aggregation (DISTINCT)", n)
	}
	return nil
}
