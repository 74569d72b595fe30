// Package mem accounts for the memory queries hold. A Pool is the
// server's query memory (--query-memory); each statement draws from it
// through a Budget, and each operator that holds rows (hash tables, sort
// buffers, window partitions) through an Account of its statement's
// Budget. An operator that cannot grow its Account spills to disk or, when
// it cannot, fails its query with 53200: the server never runs out.
//
// The figures are estimates of what an operator keeps alive (Arrow buffer
// sizes, hash table entries), not of the Go heap, which the garbage
// collector lets grow past them.
package mem

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/loamdb/loam/pgerr"
)

// Pool is the memory all running queries share.
type Pool struct {
	limit int64
	used  atomic.Int64
	dir   string
	seq   atomic.Int64
}

// NewPool makes a pool of limit bytes (<= 0: unlimited) whose queries
// spill into dir. Whatever dir holds is left over from an earlier run of
// the server and is removed.
func NewPool(limit int64, dir string) (*Pool, error) {
	if dir != "" {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("clearing spill directory: %w", err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating spill directory: %w", err)
		}
	}
	return &Pool{limit: limit, dir: dir}, nil
}

// Limit is the pool's size in bytes; <= 0 means unlimited.
func (p *Pool) Limit() int64 { return p.limit }

// Used is the bytes the pool's budgets hold now.
func (p *Pool) Used() int64 { return p.used.Load() }

// NewBudget is the account of one statement. A nil pool gives an
// unlimited budget that spills into the system's temporary directory.
func (p *Pool) NewBudget() *Budget { return &Budget{pool: p} }

func (p *Pool) tryGrow(n int64) bool {
	if p.limit <= 0 {
		p.used.Add(n)
		return true
	}
	for {
		u := p.used.Load()
		if u+n > p.limit {
			return false
		}
		if p.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// Budget is one statement's share of the pool. Its methods are safe for
// concurrent use (parallel workers of one query share it). A nil *Budget
// is unlimited.
type Budget struct {
	pool *Pool
	used atomic.Int64
	mu   sync.Mutex
	dir  string // this statement's spill directory, made on first use
}

// TryGrow reserves n more bytes, reporting false (reserving nothing) when
// the pool has not got them.
func (b *Budget) TryGrow(n int64) bool {
	if b == nil || n <= 0 {
		return true
	}
	if b.pool != nil && !b.pool.tryGrow(n) {
		return false
	}
	b.used.Add(n)
	return true
}

// Grow is TryGrow failing with 53200.
func (b *Budget) Grow(n int64, what string) error {
	if b.TryGrow(n) {
		return nil
	}
	return b.OutOfMemory(what, n)
}

// OutOfMemory is the error of an operator that could not get n more bytes
// for what, even after spilling what it could.
func (b *Budget) OutOfMemory(what string, n int64) error {
	e := pgerr.New(pgerr.OutOfMemory, "out of memory")
	e.Detail = fmt.Sprintf("Failed on request of size %d in %s; the query memory (%d bytes, --query-memory) is in use.", n, what, b.Limit())
	return e
}

// Shrink returns n bytes.
func (b *Budget) Shrink(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.used.Add(-n)
	if b.pool != nil {
		b.pool.used.Add(-n)
	}
}

// Used is the bytes the budget holds now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Limit is the most the budget could hold (the pool's size); <= 0 means
// unlimited.
func (b *Budget) Limit() int64 {
	if b == nil || b.pool == nil {
		return 0
	}
	return b.pool.limit
}

// Close returns whatever the budget still holds (an operator that leaked
// its account) and removes the statement's spill files.
func (b *Budget) Close() {
	if b == nil {
		return
	}
	b.Shrink(b.used.Load())
	b.mu.Lock()
	dir := b.dir
	b.dir = ""
	b.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// SpillDir is the directory this statement's spill files go to, made on
// first use and removed by Close.
func (b *Budget) SpillDir() (string, error) {
	if b == nil {
		return os.TempDir(), nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		return b.dir, nil
	}
	root := os.TempDir()
	var seq int64
	if b.pool != nil {
		if b.pool.dir != "" {
			root = b.pool.dir
		}
		seq = b.pool.seq.Add(1)
	}
	dir, err := os.MkdirTemp(root, fmt.Sprintf("q%d-", seq))
	if err != nil {
		return "", fmt.Errorf("making spill directory: %w", err)
	}
	b.dir = dir
	return dir, nil
}

// Account is one operator's reservation within its statement's budget.
// It is not safe for concurrent use; a parallel operator takes one per
// worker. A nil budget's accounts are unlimited.
type Account struct {
	b    *Budget
	used int64
}

// Account opens an empty reservation.
func (b *Budget) Account() *Account { return &Account{b: b} }

// Budget is the budget the account draws from.
func (a *Account) Budget() *Budget { return a.b }

// TryGrow reserves n more bytes, or reports false.
func (a *Account) TryGrow(n int64) bool {
	if !a.b.TryGrow(n) {
		return false
	}
	a.used += n
	return true
}

// Grow reserves n more bytes or fails with 53200, naming what in the
// error's detail.
func (a *Account) Grow(n int64, what string) error {
	if a.TryGrow(n) {
		return nil
	}
	return a.b.OutOfMemory(what, n)
}

// Shrink returns n bytes (at most what the account holds).
func (a *Account) Shrink(n int64) {
	n = min(n, a.used)
	a.used -= n
	a.b.Shrink(n)
}

// Used is the bytes the account holds.
func (a *Account) Used() int64 { return a.used }

// Clear returns everything the account holds; it stays usable.
func (a *Account) Clear() { a.Shrink(a.used) }

type ctxKey struct{}

// WithBudget is ctx carrying the statement's budget to its operators.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, ctxKey{}, b)
}

// FromContext is the budget ctx carries, nil (unlimited) when none.
func FromContext(ctx context.Context) *Budget {
	b, _ := ctx.Value(ctxKey{}).(*Budget)
	return b
}
