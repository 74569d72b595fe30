package sketch

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestThetaEstimates(t *testing.T) {
	for _, n := range []int{0, 1, 100, 4096, 50_000, 400_000} {
		s := NewTheta(DefaultK)
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(int64(i))
			b.Append(int64(i)) // every value twice: distinct values count once
		}
		col := b.NewArray()
		if !s.AddColumn(col) {
			t.Fatal("int64 has a single-value form")
		}
		col.Release()
		got := s.Estimate()
		if n <= DefaultK && got != float64(n) {
			t.Errorf("n=%d: exact mode estimates %g", n, got)
		}
		if rel := math.Abs(got-float64(n)) / math.Max(float64(n), 1); rel > 0.05 {
			t.Errorf("n=%d: estimate %g is %.1f%% off", n, got, 100*rel)
		}
	}
}

func TestThetaRoundTripAndMerge(t *testing.T) {
	a, b := NewTheta(DefaultK), NewTheta(DefaultK)
	for i := range 30_000 {
		a.Add(Hash([]byte{byte(i), byte(i >> 8), byte(i >> 16)}))
	}
	for i := 15_000; i < 60_000; i++ {
		b.Add(Hash([]byte{byte(i), byte(i >> 8), byte(i >> 16)}))
	}
	raw, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalTheta(raw, DefaultK)
	if err != nil {
		t.Fatal(err)
	}
	if back.Estimate() != a.Estimate() {
		t.Fatalf("round trip: %g, want %g", back.Estimate(), a.Estimate())
	}
	back.Merge(b)
	if got := back.Estimate(); math.Abs(got-60_000)/60_000 > 0.05 {
		t.Fatalf("union of 0..30k and 15k..60k estimates %g", got)
	}
	empty, _ := NewTheta(DefaultK).MarshalBinary()
	if e, err := UnmarshalTheta(empty, DefaultK); err != nil || !e.Empty() {
		t.Fatalf("empty sketch: %v %v", e, err)
	}
	if _, err := UnmarshalTheta(raw[:20], DefaultK); err == nil {
		t.Fatal("a truncated sketch must be refused")
	}
}

// DataSketches' default seed hashes to 0x93cc (Util.computeSeedHash(9001)).
func TestSeedHash(t *testing.T) {
	if got := SeedHash(); got != 0x93cc {
		t.Fatalf("seed hash %#x, want 0x93cc", got)
	}
}

func TestDecimalBytes(t *testing.T) {
	tests := []struct {
		hi   int64
		lo   uint64
		want []byte
	}{
		{0, 0, []byte{0}},
		{0, 1, []byte{1}},
		{0, 128, []byte{0, 128}},
		{-1, math.MaxUint64, []byte{0xff}},             // -1
		{-1, math.MaxUint64 - 127, []byte{0x80}},       // -128
		{-1, math.MaxUint64 - 128, []byte{0xff, 0x7f}}, // -129
	}
	for _, tc := range tests {
		if got := decimalBytes(tc.hi, tc.lo); string(got) != string(tc.want) {
			t.Errorf("decimalBytes(%d, %d) = %x, want %x", tc.hi, tc.lo, got, tc.want)
		}
	}
}

func FuzzUnmarshalTheta(f *testing.F) {
	s := NewTheta(16)
	for i := range 100 {
		s.Add(Hash([]byte{byte(i)}))
	}
	raw, _ := s.MarshalBinary()
	f.Add(raw)
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = UnmarshalTheta(b, 16)
	})
}
