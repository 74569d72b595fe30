package metatest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/loamdb/loam/meta"
)

// testSequences checks the definition and state of sequences: values in
// order by the increment, the bounds, CYCLE, setval with and without
// is_called, and that a sequence lives on across Close and Open.
func (s *suite) testSequences(t *testing.T) {
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	st := openAt(t, storeURL, wh)
	up := meta.Sequence{Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 3, Cache: 1, Last: 1}
	must(t, "CreateSequence", st.CreateSequence(ctx, "public", "up", up))
	wantErr(t, "CreateSequence twice", st.CreateSequence(ctx, "public", "up", up), meta.ErrExists)
	down := meta.Sequence{Type: "integer", Start: -1, Increment: -2, Min: -5, Max: -1, Cache: 20, Cycle: true, OwnedBy: "t.id", Last: -1}
	must(t, "CreateSequence", st.CreateSequence(ctx, "public", "down", down))
	got, err := st.Sequence(ctx, "public", "down")
	must(t, "Sequence", err)
	if got != down {
		t.Errorf("Sequence = %+v, want %+v", got, down)
	}
	next := func(name string, n int) []int64 {
		t.Helper()
		v, err := st.NextSequenceValues(ctx, "public", name, n)
		must(t, "NextSequenceValues "+name, err)
		return v
	}
	for _, c := range []struct {
		name string
		n    int
		want []int64
	}{
		{"up", 2, []int64{1, 2}},
		{"up", 1, []int64{3}},
		{"down", 4, []int64{-1, -3, -5, -1}}, // cycles to the maximum
	} {
		if v := next(c.name, c.n); !slices.Equal(v, c.want) {
			t.Errorf("%s: next %d = %v, want %v", c.name, c.n, v, c.want)
		}
	}
	// Past the maximum without CYCLE: an error, and nothing taken.
	_, err = st.NextSequenceValues(ctx, "public", "up", 1)
	wantErr(t, "NextSequenceValues past the maximum", err, meta.ErrSequenceLimit)
	must(t, "SetSequenceValue", st.SetSequenceValue(ctx, "public", "up", 1, true))
	if v := next("up", 1); !slices.Equal(v, []int64{2}) {
		t.Errorf("after setval(1, true): %v, want [2]", v)
	}
	must(t, "SetSequenceValue", st.SetSequenceValue(ctx, "public", "up", 1, false))
	if v := next("up", 2); !slices.Equal(v, []int64{1, 2}) {
		t.Errorf("after setval(1, false): %v, want [1 2]", v)
	}
	// ALTER: a new bound and a restart, in one step.
	must(t, "AlterSequence", st.AlterSequence(ctx, "public", "up", func(q meta.Sequence) (meta.Sequence, error) {
		q.Max, q.Last, q.Called = 10, 8, false
		return q, nil
	}))
	if v := next("up", 3); !slices.Equal(v, []int64{8, 9, 10}) {
		t.Errorf("after ALTER … MAXVALUE 10 RESTART 8: %v, want [8 9 10]", v)
	}
	wantErr(t, "AlterSequence failing", st.AlterSequence(ctx, "public", "up", func(q meta.Sequence) (meta.Sequence, error) {
		return q, meta.ErrConflict
	}), meta.ErrConflict)
	wantErr(t, "AlterSequence of none", st.AlterSequence(ctx, "public", "nosuch", func(q meta.Sequence) (meta.Sequence, error) {
		return q, nil
	}), meta.ErrNotFound)
	must(t, "SetSequenceValue", st.SetSequenceValue(ctx, "public", "up", 2, true))
	must(t, "Close", st.Close())
	st = openAt(t, storeURL, wh)
	if v := next("up", 1); !slices.Equal(v, []int64{3}) {
		t.Errorf("after reopening: %v, want [3]", v)
	}
	names, err := st.ListSequences(ctx, "public")
	must(t, "ListSequences", err)
	if !slices.Equal(names, []string{"down", "up"}) {
		t.Errorf("ListSequences = %q", names)
	}
	must(t, "DropSequence", st.DropSequence(ctx, "public", "up"))
	wantErr(t, "DropSequence twice", st.DropSequence(ctx, "public", "up"), meta.ErrNotFound)
	_, err = st.Sequence(ctx, "public", "up")
	wantErr(t, "Sequence after drop", err, meta.ErrNotFound)
	_, err = st.NextSequenceValues(ctx, "public", "up", 1)
	wantErr(t, "NextSequenceValues after drop", err, meta.ErrNotFound)
	wantErr(t, "SetSequenceValue after drop", st.SetSequenceValue(ctx, "public", "up", 1, true), meta.ErrNotFound)
}

// testConcurrentSequence takes values of one sequence from two stores on
// the same database (two servers) and many goroutines at once: every value
// is handed out exactly once, with no gap.
func (s *suite) testConcurrentSequence(t *testing.T) {
	const goroutines, rounds = 8, 10
	ctx := context.Background()
	storeURL, wh := s.fresh(t)
	a := openAt(t, storeURL, wh)
	b := openAt(t, storeURL, wh)
	must(t, "CreateSequence", a.CreateSequence(ctx, "public", "ids",
		meta.Sequence{Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 1 << 62, Cache: 1, Last: 1}))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  []int64
		errs []error
	)
	for g := range goroutines {
		st := a
		if g%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				v, err := st.NextSequenceValues(ctx, "public", "ids", 3)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				}
				got = append(got, v...)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("NextSequenceValues: %v", errors.Join(errs...))
	}
	slices.Sort(got)
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("values %v: want each of 1..%d once", got, goroutines*rounds*3)
		}
	}
	if len(got) != goroutines*rounds*3 {
		t.Fatalf("%d values, want %d", len(got), goroutines*rounds*3)
	}
}
