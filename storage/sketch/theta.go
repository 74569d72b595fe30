// Package sketch holds the statistics Loam writes beside a table for other
// engines and its own planner: theta sketches of each column's distinct
// values, in the compact form of Apache DataSketches that Iceberg's Puffin
// spec names (apache-datasketches-theta-v1).
package sketch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/twmb/murmur3"
)

// Seed is DataSketches' default update seed; sketches built with another
// do not combine, so Iceberg requires this one.
const Seed = 9001

// DefaultK is the nominal number of hashes a sketch keeps (lgK 12, as
// DataSketches' default): a relative error of about 1/sqrt(K), 1.6%.
const DefaultK = 4096

// maxTheta is theta = 1.0 as DataSketches stores it: hashes are 63 bits.
const maxTheta = math.MaxInt64

// Theta is a KMV theta sketch: the K smallest 63-bit hashes of the values
// seen, and theta, the bound below which every hash seen is kept.
type Theta struct {
	k      int
	theta  uint64
	hashes map[uint64]struct{}
}

// NewTheta is an empty sketch keeping k hashes.
func NewTheta(k int) *Theta {
	return &Theta{k: k, theta: maxTheta, hashes: make(map[uint64]struct{}, min(k, 1024))}
}

// Hash is the 63-bit hash DataSketches keeps for a value's bytes.
func Hash(b []byte) uint64 {
	h1, _ := murmur3.SeedSum128(Seed, Seed, b)
	return h1 >> 1
}

// Add adds a value's hash (see Hash).
func (s *Theta) Add(h uint64) {
	if h == 0 || h >= s.theta {
		return
	}
	s.hashes[h] = struct{}{}
	if len(s.hashes) > 2*s.k {
		s.trim()
	}
}

// trim keeps the k smallest hashes and lowers theta to the next one.
func (s *Theta) trim() {
	if len(s.hashes) <= s.k {
		return
	}
	all := make([]uint64, 0, len(s.hashes))
	for h := range s.hashes {
		all = append(all, h)
	}
	slices.Sort(all)
	s.theta = all[s.k]
	for _, h := range all[s.k:] {
		delete(s.hashes, h)
	}
}

// Merge adds o's hashes: the union of the two sets' sketches.
func (s *Theta) Merge(o *Theta) {
	s.theta = min(s.theta, o.theta)
	for h := range s.hashes {
		if h >= s.theta {
			delete(s.hashes, h)
		}
	}
	for h := range o.hashes {
		s.Add(h)
	}
	s.trim()
}

// Estimate is the estimated number of distinct values.
func (s *Theta) Estimate() float64 {
	s.trim()
	if s.theta == maxTheta {
		return float64(len(s.hashes))
	}
	return float64(len(s.hashes)) / (float64(s.theta) / maxTheta)
}

// Empty reports whether no value was added.
func (s *Theta) Empty() bool { return len(s.hashes) == 0 && s.theta == maxTheta }

// Compact serialization (DataSketches serial version 3, little-endian):
// a preamble of 1 (empty), 2 (exact) or 3 (estimating) longs, then the
// hashes in ascending order.
const (
	serVer        = 3
	familyCompact = 3
	flagReadOnly  = 1 << 1
	flagEmpty     = 1 << 2
	flagCompact   = 1 << 3
	flagOrdered   = 1 << 4
)

// SeedHash is the 16-bit hash of the seed a serialized sketch carries, so a
// reader refuses a sketch built with another seed.
func SeedHash() uint16 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], Seed)
	h1, _ := murmur3.SeedSum128(0, 0, b[:])
	return uint16(h1)
}

// MarshalBinary is the compact form of the sketch.
func (s *Theta) MarshalBinary() ([]byte, error) {
	s.trim()
	hs := make([]uint64, 0, len(s.hashes))
	for h := range s.hashes {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	pre := 2
	flags := byte(flagReadOnly | flagCompact | flagOrdered)
	switch {
	case s.Empty():
		pre = 1
		flags |= flagEmpty
	case s.theta < maxTheta:
		pre = 3
	}
	b := make([]byte, 8*pre+8*len(hs))
	b[0], b[1], b[2], b[5] = byte(pre), serVer, familyCompact, flags
	binary.LittleEndian.PutUint16(b[6:], SeedHash())
	if pre > 1 {
		binary.LittleEndian.PutUint32(b[8:], uint32(len(hs)))
		binary.LittleEndian.PutUint32(b[12:], math.Float32bits(1))
	}
	if pre > 2 {
		binary.LittleEndian.PutUint64(b[16:], s.theta)
	}
	for i, h := range hs {
		binary.LittleEndian.PutUint64(b[8*pre+8*i:], h)
	}
	return b, nil
}

// UnmarshalTheta reads a compact sketch (serial version 3), keeping up to
// k hashes.
func UnmarshalTheta(b []byte, k int) (*Theta, error) {
	if len(b) < 8 {
		return nil, errors.New("theta sketch: too short")
	}
	pre, ver, fam, flags := int(b[0]&0x3f), b[1], b[2], b[5]
	if ver != serVer || fam != familyCompact {
		return nil, fmt.Errorf("theta sketch: serial version %d family %d, want a compact sketch of version 3", ver, fam)
	}
	if got := binary.LittleEndian.Uint16(b[6:]); got != SeedHash() && flags&flagEmpty == 0 {
		return nil, fmt.Errorf("theta sketch: seed hash %#x, not the default seed's", got)
	}
	s := NewTheta(k)
	if flags&flagEmpty != 0 || pre < 2 {
		return s, nil
	}
	if len(b) < 8*pre {
		return nil, errors.New("theta sketch: truncated preamble")
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if pre > 2 {
		s.theta = binary.LittleEndian.Uint64(b[16:])
	}
	if len(b) < 8*pre+8*n {
		return nil, errors.New("theta sketch: truncated hashes")
	}
	for i := range n {
		s.Add(binary.LittleEndian.Uint64(b[8*pre+8*i:]))
	}
	s.trim()
	return s, nil
}
