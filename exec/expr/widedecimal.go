package expr

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/loamdb/loam/types"
)

// + - * whose result may need 39 to 76 digits compute in 256-bit two's
// complement: the result type's precision bounds every value below 2^253,
// so arithmetic modulo 2^256 is exact.

// u256 is a 256-bit two's complement value, least significant limb first.
type u256 [4]uint64

func (a u256) add(b u256) u256 {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
	return a
}

func (a u256) neg() u256 {
	var c uint64 = 1
	for i := range a {
		a[i], c = bits.Add64(^a[i], 0, c)
	}
	return a
}

// mul is the product modulo 2^256 (exact for signed values whose product
// fits).
func (a u256) mul(b u256) u256 {
	var r u256
	for i := 0; i < 4; i++ {
		if a[i] == 0 {
			continue
		}
		var carry uint64
		for j := 0; i+j < 4; j++ {
			hi, lo := bits.Mul64(a[i], b[j])
			var c1, c2 uint64
			lo, c1 = bits.Add64(lo, r[i+j], 0)
			lo, c2 = bits.Add64(lo, carry, 0)
			r[i+j] = lo
			carry = hi + c1 + c2
		}
	}
	return r
}

var pow10u256 = func() (p [77]u256) {
	p[0] = u256{1}
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1].mul(u256{10})
	}
	return p
}()

// wideValues reads a Decimal128 or Decimal256 column as 256-bit values
// and its scale.
func wideValues(a arrow.Array) ([]u256, int32) {
	switch dt := a.DataType().(type) {
	case *arrow.Decimal128Type:
		in := arrow.GetValues[decimal128.Num](a.Data(), 1)
		out := make([]u256, len(in))
		for i, x := range in {
			top := uint64(x.HighBits() >> 63)
			out[i] = u256{x.LowBits(), uint64(x.HighBits()), top, top}
		}
		return out, dt.Scale
	case *arrow.Decimal256Type:
		in := arrow.GetValues[decimal256.Num](a.Data(), 1)
		out := make([]u256, len(in))
		for i, x := range in {
			out[i] = x.Array()
		}
		return out, dt.Scale
	}
	panic("expr: wide decimal operand of type " + a.DataType().String())
}

// wideArith computes l op r into Decimal256 values of type t, which
// DecimalArithType gave.
func wideArith(op ArithOp, l, r arrow.Array, t types.T) arrow.Array {
	p, s, _ := t.Wide()
	if op == Mul {
		if out, ok := mulNarrow(l, r); ok {
			return typedArray(types.WideArrow(p, s), arrow.GetBytes(out), len(out), l, r)
		}
	}
	lv, ls := wideValues(l)
	rv, rs := wideValues(r)
	out := make([]decimal256.Num, len(lv))
	switch op {
	case Mul:
		for i := range out {
			out[i] = num256(lv[i].mul(rv[i]))
		}
	default:
		lm, rm := pow10u256[s-ls], pow10u256[s-rs]
		for i := range out {
			b := rv[i].mul(rm)
			if op == Sub {
				b = b.neg()
			}
			out[i] = num256(lv[i].mul(lm).add(b))
		}
	}
	return typedArray(types.WideArrow(p, s), arrow.GetBytes(out), len(out), l, r)
}

func num256(v u256) decimal256.Num { return decimal256.New(v[3], v[2], v[1], v[0]) }

// mulNarrow multiplies two Decimal128 columns into 256-bit products: the
// magnitudes' 128×128-bit product, negated when the signs differ.
func mulNarrow(l, r arrow.Array) ([]decimal256.Num, bool) {
	_, ok1 := l.DataType().(*arrow.Decimal128Type)
	_, ok2 := r.DataType().(*arrow.Decimal128Type)
	if !ok1 || !ok2 {
		return nil, false
	}
	lv := arrow.GetValues[decimal128.Num](l.Data(), 1)
	rv := arrow.GetValues[decimal128.Num](r.Data(), 1)
	out := make([]decimal256.Num, len(lv))
	for i := range out {
		a, b := lv[i], rv[i]
		negA, negB := a.HighBits() < 0, b.HighBits() < 0
		if negA {
			a = a.Negate()
		}
		if negB {
			b = b.Negate()
		}
		// (ah·2^64 + al)(bh·2^64 + bl)
		al, ah, bl, bh := a.LowBits(), uint64(a.HighBits()), b.LowBits(), uint64(b.HighBits())
		h0, l0 := bits.Mul64(al, bl)
		h1, l1 := bits.Mul64(al, bh)
		h2, l2 := bits.Mul64(ah, bl)
		h3, l3 := bits.Mul64(ah, bh)
		var v u256
		var c1, c2, c3, c4 uint64
		v[0] = l0
		v[1], c1 = bits.Add64(h0, l1, 0)
		v[1], c2 = bits.Add64(v[1], l2, 0)
		v[2], c3 = bits.Add64(h1, h2, c1)
		v[2], c4 = bits.Add64(v[2], l3, c2)
		v[3] = h3 + c3 + c4
		if negA != negB {
			v = v.neg()
		}
		out[i] = num256(v)
	}
	return out, true
}
