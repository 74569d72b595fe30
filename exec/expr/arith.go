package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// ArithOp is an arithmetic operator.
type ArithOp uint8

const (
	Add ArithOp = iota
	Sub
	Mul
	Div
	Mod
)

var arithNames = [...]string{Add: "+", Sub: "-", Mul: "*", Div: "/", Mod: "%"}

// Arith applies an operator to two operands coerced to the result type T,
// raising PostgreSQL's overflow (22003) and division-by-zero (22012) errors.
type Arith struct {
	Op   ArithOp
	L, R Expr
	T    types.T
}

func (e *Arith) Type() types.T { return e.T }
func (e *Arith) String() string {
	return "(" + e.L.String() + " " + arithNames[e.Op] + " " + e.R.String() + ")"
}

func (e *Arith) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{e.L, e.R})
	if err != nil {
		return nil, err
	}
	defer release(args)
	l, r := args[0], args[1]
	switch e.T.Kind {
	case types.Int2:
		return intArith(e.Op, arrow.GetValues[int16](l.Data(), 1), arrow.GetValues[int16](r.Data(), 1), l, r, math.MinInt16, math.MaxInt16, "smallint")
	case types.Int4:
		return intArith(e.Op, arrow.GetValues[int32](l.Data(), 1), arrow.GetValues[int32](r.Data(), 1), l, r, math.MinInt32, math.MaxInt32, "integer")
	case types.Int8:
		return intArith(e.Op, arrow.GetValues[int64](l.Data(), 1), arrow.GetValues[int64](r.Data(), 1), l, r, math.MinInt64, math.MaxInt64, "bigint")
	case types.Float4:
		return floatArith(e.Op, arrow.GetValues[float32](l.Data(), 1), arrow.GetValues[float32](r.Data(), 1), l, r)
	case types.Float8:
		return floatArith(e.Op, arrow.GetValues[float64](l.Data(), 1), arrow.GetValues[float64](r.Data(), 1), l, r)
	case types.Numeric:
		if _, _, ok := e.T.Decimal(); ok {
			return decimalArith(e.Op, l, r, e.T)
		}
		if _, _, ok := e.T.Wide(); ok {
			return wideArith(e.Op, l, r, e.T), nil
		}
		la, ra := NumericText(l), NumericText(r)
		return mapDatums(e.T, l.Len(), func(i int) (types.Datum, error) {
			if l.IsNull(i) || r.IsNull(i) {
				return types.NullOf(e.T), nil
			}
			return NumericArith(e.Op, la(i), ra(i))
		})
	}
	return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", e.L.Type(), arithNames[e.Op], e.R.Type())
}

// NumericArith applies op to two numeric values in text form.
func NumericArith(op ArithOp, a, b string) (types.Datum, error) {
	if d, ok := smallNumericDatum(op, a, b); ok {
		return d, nil
	}
	return numericArithDec(op, a, b)
}

// numericArithDec is NumericArith through math/big.
func numericArithDec(op ArithOp, a, b string) (types.Datum, error) {
	x, err := types.ParseDec(a)
	if err != nil {
		return types.Datum{}, err
	}
	y, err := types.ParseDec(b)
	if err != nil {
		return types.Datum{}, err
	}
	var r types.Dec
	switch op {
	case Add:
		r = x.Add(&y)
	case Sub:
		r = x.Sub(&y)
	case Mul:
		r = x.Mul(&y)
	case Div:
		if r, err = x.Div(&y); err != nil {
			return types.Datum{}, err
		}
	case Mod:
		if y.Sign() == 0 {
			return types.Datum{}, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		// Remainder truncated toward zero, at the larger scale of the two.
		sc := max(x.Scale, y.Scale)
		xa, ya := x.Rescale(sc), y.Rescale(sc)
		r.U.Rem(&xa.U, &ya.U)
		r.Scale = sc
	}
	return types.Datum{T: types.TNumeric, S: r.String()}, nil
}

func intArith[T int16 | int32 | int64](op ArithOp, l, r []T, la, ra arrow.Array, lo, hi int64, name string) (arrow.Array, error) {
	n := la.Len()
	out := make([]T, n)
	overflow := func() error { return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", name) }
	for i := 0; i < n; i++ {
		if la.IsNull(i) || ra.IsNull(i) {
			continue
		}
		a, b := int64(l[i]), int64(r[i])
		var v int64
		switch op {
		case Add:
			v = a + b
			if (a > 0 && b > 0 && v < 0) || (a < 0 && b < 0 && v >= 0) {
				return nil, overflow()
			}
		case Sub:
			v = a - b
			if (a >= 0 && b < 0 && v < 0) || (a < 0 && b > 0 && v >= 0) {
				return nil, overflow()
			}
		case Mul:
			v = a * b
			if a != 0 && (v/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
				return nil, overflow()
			}
		case Div, Mod:
			if b == 0 {
				return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
			}
			if b == -1 {
				if op == Mod {
					v = 0
					break
				}
				if a == lo {
					return nil, overflow()
				}
				v = -a
				break
			}
			if op == Div {
				v = a / b
			} else {
				v = a % b
			}
		}
		if v < lo || v > hi {
			return nil, overflow()
		}
		out[i] = T(v)
	}
	return fixedArray(out, la, ra), nil
}

func floatArith[T float32 | float64](op ArithOp, l, r []T, la, ra arrow.Array) (arrow.Array, error) {
	n := la.Len()
	out := make([]T, n)
	for i := 0; i < n; i++ {
		if la.IsNull(i) || ra.IsNull(i) {
			continue
		}
		a, b := l[i], r[i]
		var v T
		switch op {
		case Add:
			v = a + b
		case Sub:
			v = a - b
		case Mul:
			v = a * b
		case Div:
			if b == 0 {
				return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
			}
			v = a / b
		case Mod:
			return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: double precision %% double precision")
		}
		if math.IsInf(float64(v), 0) && !math.IsInf(float64(a), 0) && !math.IsInf(float64(b), 0) {
			return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		out[i] = v
	}
	return fixedArray(out, la, ra), nil
}

// fixedArray wraps typed values as an Arrow array, NULL where an input is.
func fixedArray[T int16 | int32 | int64 | float32 | float64](vals []T, inputs ...arrow.Array) arrow.Array {
	var dt arrow.DataType
	switch any(vals).(type) {
	case []int16:
		dt = arrow.PrimitiveTypes.Int16
	case []int32:
		dt = arrow.PrimitiveTypes.Int32
	case []int64:
		dt = arrow.PrimitiveTypes.Int64
	case []float32:
		dt = arrow.PrimitiveTypes.Float32
	default:
		dt = arrow.PrimitiveTypes.Float64
	}
	return typedArray(dt, arrow.GetBytes(vals), len(vals), inputs...)
}

// typedArray builds a fixed-width array of type dt over raw value bytes,
// with a validity bitmap merged from the inputs.
func typedArray(dt arrow.DataType, raw []byte, n int, inputs ...arrow.Array) arrow.Array {
	var bitmap *memory.Buffer
	nulls := 0
	for _, in := range inputs {
		if in.NullN() == 0 {
			continue
		}
		if bitmap == nil {
			bitmap = memory.NewResizableBuffer(memory.DefaultAllocator)
			bitmap.Resize(int((n + 7) / 8))
			bits := bitmap.Bytes()
			for i := range bits {
				bits[i] = 0xff
			}
		}
		bits := bitmap.Bytes()
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				bits[i/8] &^= 1 << (i % 8)
			}
		}
	}
	if bitmap != nil {
		bits := bitmap.Bytes()
		for i := 0; i < n; i++ {
			if bits[i/8]&(1<<(i%8)) == 0 {
				nulls++
			}
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{bitmap, memory.NewBufferBytes(raw)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// Neg is unary minus.
type Neg struct{ Arg Expr }

func (e *Neg) Type() types.T  { return e.Arg.Type() }
func (e *Neg) String() string { return "(-" + e.Arg.String() + ")" }
func (e *Neg) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	zero := &Const{D: types.Datum{T: e.Arg.Type(), S: "0"}}
	return (&Arith{Op: Sub, L: zero, R: e.Arg, T: e.Arg.Type()}).Eval(c, b)
}
