package exec

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// JoinTable is a hash join's build side read once and probed by several
// joins at once: the parallel workers' copies of one join each probe
// their morsels against it (PostgreSQL's non-parallel-aware Hash under a
// Gather, built once rather than once a worker). Only joins that keep no
// per-row state of the build side share one (inner and left joins).
type JoinTable struct {
	once   sync.Once
	in     Operator
	rkeys  []expr.Expr
	ec     *expr.Ctx
	right0 arrow.RecordBatch
	table  map[string][]int32
	err    error
}

// NewJoinTable reads in, keyed by rkeys, when a join first needs it.
func NewJoinTable(in Operator, rkeys []expr.Expr, ec *expr.Ctx) *JoinTable {
	return &JoinTable{in: in, rkeys: rkeys, ec: ec}
}

// get is the built table; the first caller builds it, the others wait.
func (t *JoinTable) get(ctx context.Context) (arrow.RecordBatch, map[string][]int32, error) {
	t.once.Do(func() {
		if err := t.in.Open(ctx); err != nil {
			t.err = err
			return
		}
		t.right0, t.table, t.err = buildTable(ctx, t.in, t.rkeys, t.ec)
	})
	return t.right0, t.table, t.err
}

// buildTable reads in whole and hashes each row's key. The table is not
// under the query's memory budget: only the serial join spills.
func buildTable(ctx context.Context, in Operator, rkeys []expr.Expr, ec *expr.Ctx) (arrow.RecordBatch, map[string][]int32, error) {
	all, err := Drain(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	if all == nil {
		all = emptyBatch(in.Types())
	}
	key, release, err := joinKeys(ec, all, rkeys, new([]byte))
	if err != nil {
		all.Release()
		return nil, nil, err
	}
	defer release()
	table, _, err := hashRows(ctx, key, int(all.NumRows()), false)
	if err != nil {
		all.Release()
		return nil, nil, err
	}
	return all, table, nil
}

// Close releases the table and closes the build input.
func (t *JoinTable) Close() error {
	if t.right0 != nil {
		t.right0.Release()
		t.right0 = nil
	}
	return t.in.Close()
}

// NewSharedHashJoin is NewHashJoin (kind inner or left) probing a table
// other joins share.
func NewSharedHashJoin(kind JoinKind, left Operator, t *JoinTable, lkeys []expr.Expr, extra expr.Expr, ec *expr.Ctx) Operator {
	h := NewHashJoin(kind, left, sharedRight{t.in.Types()}, lkeys, t.rkeys, extra, ec).(*hashJoin)
	h.shared = t
	return h
}

// sharedRight stands for a shared table's input in each join that probes
// it: the table opens and closes the input itself.
type sharedRight struct{ ts []types.T }

func (s sharedRight) Open(context.Context) error                      { return nil }
func (s sharedRight) Close() error                                    { return nil }
func (s sharedRight) Types() []types.T                                { return s.ts }
func (s sharedRight) Next(context.Context) (arrow.RecordBatch, error) { return nil, nil }
