package agg

import (
	"math"
	"math/bits"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// hllState is approx_count_distinct: per group an exact set of 64-bit
// hashes while it is small, then a HyperLogLog of 2^14 registers (standard
// error 0.81%) read with Ertl's improved estimator, which needs no bias
// tables.
type hllState struct {
	t     types.T
	small []map[uint64]struct{}
	regs  [][]uint8
	trash bool
	buf   []byte
}

const (
	hllP      = 14
	hllM      = 1 << hllP
	hllQ      = 64 - hllP
	hllSparse = 2048 // exact hashes kept before switching to registers
)

func (s *hllState) setTrash() { s.trash = true }

func (s *hllState) grow(g int) {
	for len(s.small) < g {
		s.small = append(s.small, nil)
		s.regs = append(s.regs, nil)
	}
}

// mix64 is MurmurHash3's finaliser: it spreads FNV's weak low bits.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix64(h)
}

func (s *hllState) add(g int32, h uint64) {
	if r := s.regs[g]; r != nil {
		idx := h >> hllQ
		rank := uint8(min(bits.LeadingZeros64(h<<hllP), hllQ) + 1)
		if rank > r[idx] {
			r[idx] = rank
		}
		return
	}
	m := s.small[g]
	if m == nil {
		m = map[uint64]struct{}{}
		s.small[g] = m
	}
	m[h] = struct{}{}
	if len(m) > hllSparse {
		s.regs[g] = make([]uint8, hllM)
		s.small[g] = nil
		for k := range m {
			s.add(g, k)
		}
	}
}

func (s *hllState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	nulls := arg.NullN() > 0
	switch s.t.Kind {
	case types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		// Integers of all widths hash by value, so 1::int2 and 1::int8 agree.
		for i, g := range gids {
			if (nulls && arg.IsNull(i)) || (g == 0 && s.trash) {
				continue
			}
			s.add(g, mix64(uint64(types.DatumAt(s.t, arg, i).I)+0x9e3779b97f4a7c15))
		}
		return
	}
	w := exec.KeyWriter(s.t, arg)
	for i, g := range gids {
		if (nulls && arg.IsNull(i)) || (g == 0 && s.trash) {
			continue
		}
		s.buf = w(s.buf[:0], i)
		s.add(g, hashBytes(s.buf))
	}
}

func (s *hllState) estimate(g int) int64 {
	if s.regs[g] == nil {
		return int64(len(s.small[g]))
	}
	var c [hllQ + 2]float64
	for _, r := range s.regs[g] {
		c[r]++
	}
	const m = float64(hllM)
	z := m * hllTau(1-c[hllQ+1]/m)
	for k := hllQ; k >= 1; k-- {
		z = 0.5 * (z + c[k])
	}
	z += m * hllSigma(c[0]/m)
	return int64(math.Round(m * m / (2 * math.Ln2) / z))
}

func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

func (s *hllState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TInt8, len(s.small))
	for g := range s.small {
		b.Append(types.Int(types.TInt8, s.estimate(g)))
	}
	return b.Finish(), nil
}

// tdigestState is approx_percentile: a merging t-digest per group
// (Dunning), compression 200, so memory stays bounded whatever the input.
type tdigestState struct {
	argT  types.T
	frac  types.Datum
	dig   []*tdigest
	trash bool
}

func (s *tdigestState) setTrash() { s.trash = true }

func (s *tdigestState) grow(g int) {
	for len(s.dig) < g {
		s.dig = append(s.dig, nil)
	}
}

func (s *tdigestState) add(g int32, v float64) {
	if v != v || (g == 0 && s.trash) {
		return
	}
	d := s.dig[g]
	if d == nil {
		d = newTDigest(200)
		s.dig[g] = d
	}
	d.Add(v)
}

func (s *tdigestState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	nulls := arg.NullN() > 0
	valid := func(i int) bool { return !nulls || arg.IsValid(i) }
	switch s.argT.Kind {
	case types.Int2:
		v := arrow.GetValues[int16](arg.Data(), 1)
		for i, g := range gids {
			if valid(i) {
				s.add(g, float64(v[i]))
			}
		}
	case types.Int4:
		v := arrow.GetValues[int32](arg.Data(), 1)
		for i, g := range gids {
			if valid(i) {
				s.add(g, float64(v[i]))
			}
		}
	case types.Int8:
		v := arrow.GetValues[int64](arg.Data(), 1)
		for i, g := range gids {
			if valid(i) {
				s.add(g, float64(v[i]))
			}
		}
	case types.Float4:
		v := arrow.GetValues[float32](arg.Data(), 1)
		for i, g := range gids {
			if valid(i) {
				s.add(g, float64(v[i]))
			}
		}
	case types.Float8:
		v := arrow.GetValues[float64](arg.Data(), 1)
		for i, g := range gids {
			if valid(i) {
				s.add(g, v[i])
			}
		}
	default:
		text := expr.NumericText(arg)
		for i, g := range gids {
			if valid(i) {
				if f, err := strconv.ParseFloat(text(i), 64); err == nil {
					s.add(g, f)
				}
			}
		}
	}
}

func (s *tdigestState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TFloat8, len(s.dig))
	for _, d := range s.dig {
		if s.frac.Null || d == nil {
			b.AppendNull()
			continue
		}
		if err := CheckFrac(s.frac); err != nil {
			return nil, err
		}
		b.Append(types.Float8Datum(d.Quantile(s.frac.F)))
	}
	return b.Finish(), nil
}

type centroid struct{ m, w float64 }

type tdigest struct {
	delta    float64
	cs       []centroid
	buf      []float64
	total    float64
	min, max float64
}

func newTDigest(delta float64) *tdigest {
	return &tdigest{delta: delta, min: math.Inf(1), max: math.Inf(-1)}
}

func (d *tdigest) Add(v float64) {
	d.buf = append(d.buf, v)
	d.min = min(d.min, v)
	d.max = max(d.max, v)
	if len(d.buf) >= int(10*d.delta) {
		d.merge()
	}
}

// merge folds the buffer into the centroids: a centroid near quantile q may
// hold at most 4·N·q(1−q)/δ points, so the tails stay exact.
func (d *tdigest) merge() {
	if len(d.buf) == 0 {
		return
	}
	all := d.cs
	for _, v := range d.buf {
		all = append(all, centroid{v, 1})
	}
	d.buf = d.buf[:0]
	slices.SortFunc(all, func(a, b centroid) int {
		switch {
		case a.m < b.m:
			return -1
		case a.m > b.m:
			return 1
		}
		return 0
	})
	var W float64
	for _, c := range all {
		W += c.w
	}
	out := make([]centroid, 0, int(2*d.delta))
	cur := all[0]
	soFar := 0.0
	for _, c := range all[1:] {
		proposed := cur.w + c.w
		q := (soFar + proposed/2) / W
		if proposed <= 4*W*q*(1-q)/d.delta {
			cur.m += (c.m - cur.m) * c.w / proposed
			cur.w = proposed
			continue
		}
		out = append(out, cur)
		soFar += cur.w
		cur = c
	}
	d.cs = append(out, cur)
	d.total = W
}

// Quantile interpolates between centroid centres (and the extremes).
func (d *tdigest) Quantile(q float64) float64 {
	d.merge()
	cs := d.cs
	if len(cs) == 0 {
		return math.NaN()
	}
	if len(cs) == 1 {
		return cs[0].m
	}
	target := q * d.total
	cum := 0.0
	for i, c := range cs {
		center := cum + c.w/2
		if target <= center {
			if i == 0 {
				if center <= 0 {
					return c.m
				}
				return d.min + (c.m-d.min)*target/center
			}
			p := cs[i-1]
			pc := cum - p.w/2
			return p.m + (c.m-p.m)*(target-pc)/(center-pc)
		}
		cum += c.w
	}
	last := cs[len(cs)-1]
	lc := d.total - last.w/2
	if d.total <= lc {
		return last.m
	}
	return last.m + (d.max-last.m)*(target-lc)/(d.total-lc)
}
