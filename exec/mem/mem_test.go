package mem

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

func TestBudgetsShareThePool(t *testing.T) {
	p, err := NewPool(100, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.NewBudget(), p.NewBudget()
	acc := a.Account()
	if !acc.TryGrow(60) {
		t.Fatal("60 of 100 refused")
	}
	if b.TryGrow(50) {
		t.Fatal("a second budget got 50 while the first holds 60 of 100")
	}
	if err := b.Account().Grow(50, "test"); !isOOM(err) {
		t.Fatalf("Grow beyond the pool: %v, want 53200", err)
	}
	acc.Shrink(30)
	if !b.TryGrow(50) {
		t.Fatal("50 refused after the first gave back 30")
	}
	if got := p.Used(); got != 80 {
		t.Fatalf("pool used %d, want 80", got)
	}
	a.Close() // returns the account's 30 too
	b.Close()
	if got := p.Used(); got != 0 {
		t.Fatalf("pool used %d after both closed, want 0", got)
	}
}

func TestNilBudgetIsUnlimited(t *testing.T) {
	var b *Budget
	acc := b.Account()
	if !acc.TryGrow(1 << 50) {
		t.Fatal("nil budget refused")
	}
	acc.Clear()
	if FromContext(context.Background()) != nil {
		t.Fatal("a context without a budget has one")
	}
}

func TestConcurrentAccountsNeverExceedThePool(t *testing.T) {
	const limit = 1000
	p, _ := NewPool(limit, "")
	b := p.NewBudget()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			acc := b.Account()
			for i := 0; i < 2000; i++ {
				if acc.TryGrow(7) {
					if u := p.Used(); u > limit {
						t.Errorf("pool used %d > %d", u, limit)
						return
					}
				}
				if i%3 == 0 {
					acc.Shrink(7)
				}
			}
			acc.Clear()
		}()
	}
	wg.Wait()
	if p.Used() != 0 || b.Used() != 0 {
		t.Fatalf("after every account cleared: pool %d, budget %d", p.Used(), b.Used())
	}
}

func TestNewPoolClearsLeftoverSpills(t *testing.T) {
	dir := t.TempDir() + "/spill"
	p, _ := NewPool(0, dir)
	d, err := p.NewBudget().SpillDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d+"/x", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPool(0, dir); err != nil { // a restart
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Fatalf("restart left %d entries in the spill directory", len(es))
	}
}

func isOOM(err error) bool {
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Code == pgerr.OutOfMemory
}
