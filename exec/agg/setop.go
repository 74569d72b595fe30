package agg

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// SetKind is INTERSECT or EXCEPT (UNION is a concatenation, made distinct
// by a hash aggregate without aggregates).
type SetKind uint8

const (
	Intersect SetKind = iota
	Except
)

type setOp struct {
	kind        SetKind
	all         bool
	left, right exec.Operator
	ts          []types.T
	counts      map[string]int
	emitted     map[string]bool
	keyBuf      []byte
}

var _ exec.Operator = (*setOp)(nil)

// NewSetOp is left INTERSECT|EXCEPT [ALL] right, by whole rows, with NULLs
// equal to each other as in SQL's set operations. Both inputs have the
// types ts.
func NewSetOp(kind SetKind, all bool, left, right exec.Operator, ts []types.T) exec.Operator {
	return &setOp{kind: kind, all: all, left: left, right: right, ts: ts}
}

func (s *setOp) Types() []types.T { return s.ts }

func (s *setOp) Open(ctx context.Context) error {
	if err := s.left.Open(ctx); err != nil {
		return err
	}
	return s.right.Open(ctx)
}

func (s *setOp) Close() error {
	err := s.left.Close()
	if rerr := s.right.Close(); err == nil {
		err = rerr
	}
	return err
}

func (s *setOp) rowKeys(rec arrow.RecordBatch) []string {
	writers := make([]func([]byte, int) []byte, len(s.ts))
	for c := range writers {
		writers[c] = exec.KeyWriter(s.ts[c], rec.Column(c))
	}
	keys := make([]string, rec.NumRows())
	for r := range keys {
		buf := s.keyBuf[:0]
		for _, w := range writers {
			buf = w(buf, r)
		}
		s.keyBuf = buf
		keys[r] = string(buf)
	}
	return keys
}

func (s *setOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.counts == nil {
		s.counts = map[string]int{}
		s.emitted = map[string]bool{}
		for {
			rec, err := s.right.Next(ctx)
			if err != nil {
				return nil, err
			}
			if rec == nil {
				break
			}
			for _, k := range s.rowKeys(rec) {
				s.counts[k]++
			}
			rec.Release()
		}
	}
	for {
		rec, err := s.left.Next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		var keep []int
		for r, k := range s.rowKeys(rec) {
			in := s.counts[k] > 0
			switch {
			case s.all && s.kind == Intersect:
				if in {
					s.counts[k]--
					keep = append(keep, r)
				}
			case s.all: // EXCEPT ALL
				if in {
					s.counts[k]--
				} else {
					keep = append(keep, r)
				}
			default:
				if in == (s.kind == Intersect) && !s.emitted[k] {
					s.emitted[k] = true
					keep = append(keep, r)
				}
			}
		}
		out, err := takeRows(ctx, rec, keep)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
		out.Release()
	}
}

func takeRows(ctx context.Context, rec arrow.RecordBatch, rows []int) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	for _, r := range rows {
		ib.Append(int32(r))
	}
	idx := ib.NewArray()
	defer idx.Release()
	return expr.TakeRecord(ctx, rec, idx)
}

type unionAll struct {
	inputs []exec.Operator
	ts     []types.T
	cur    int
}

var _ exec.Operator = (*unionAll)(nil)

// NewUnionAll concatenates inputs of the types ts.
func NewUnionAll(ts []types.T, inputs ...exec.Operator) exec.Operator {
	return &unionAll{inputs: inputs, ts: ts}
}

func (u *unionAll) Types() []types.T { return u.ts }
func (u *unionAll) Open(ctx context.Context) error {
	for _, in := range u.inputs {
		if err := in.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}
func (u *unionAll) Close() error {
	var err error
	for _, in := range u.inputs {
		if cerr := in.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
func (u *unionAll) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for u.cur < len(u.inputs) {
		rec, err := u.inputs[u.cur].Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			// Relabel to the union's schema (same Arrow types).
			out := array.NewRecordBatch(exec.Schema(u.ts), rec.Columns(), rec.NumRows())
			rec.Release()
			return out, nil
		}
		u.cur++
	}
	return nil, nil
}
