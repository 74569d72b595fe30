package types

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Arithmetic over typed decimals can need more than 38 digits (TPC-H's
// price * (1 - discount) * (1 + tax) over numeric(15,2) has 47): such
// results travel as Decimal256, up to 76 digits, where 256 bits cannot
// overflow. Only expressions make them; tables never hold them.

// MaxWidePrecision is the widest numeric carried as a Decimal256.
const MaxWidePrecision = 76

// Wide reports whether values of t travel as Decimal256(p, s).
func (t T) Wide() (p, s int32, ok bool) {
	if t.Kind != Numeric || t.Width >= 0 || t.DecPrec <= MaxDecimalPrecision || t.DecPrec > MaxWidePrecision ||
		t.Scale < 0 || t.Scale > t.DecPrec {
		return 0, 0, false
	}
	return t.DecPrec, t.Scale, true
}

// WideArrow is the Arrow type of a wide decimal.
func WideArrow(p, s int32) arrow.DataType {
	return &arrow.Decimal256Type{Precision: p, Scale: s}
}

// AppendWide prints v × 10^-scale as numeric's output function does.
func AppendWide(buf []byte, v decimal256.Num, scale int32) []byte {
	a := v.Array()
	if a[1] == 0 && a[2] == 0 && a[3] == 0 && a[0] <= 1<<63-1 {
		return appendScaled(buf, int64(a[0]), scale)
	}
	return appendDigits(buf, v.BigInt().String(), scale)
}

// WideToDec is the exact decimal of v × 10^-scale.
func WideToDec(v decimal256.Num, scale int32) Dec {
	var d Dec
	d.U.Set(v.BigInt())
	d.Scale = scale
	return d
}

// ParseWide reads numeric text into a wide decimal of scale s and at most
// p digits, rounding half away from zero.
func ParseWide(text string, p, s int32) (decimal256.Num, error) {
	d, err := ParseDec(text)
	if err != nil {
		return decimal256.Num{}, err
	}
	r, err := d.Fit(p, s)
	if err != nil {
		return decimal256.Num{}, err
	}
	return decimal256.FromBigInt(new(big.Int).Set(&r.U)), nil
}
