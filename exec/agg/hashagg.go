package agg

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
)

var errBigintRange = pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")

type hashAggOp struct {
	in      exec.Operator
	groupBy []expr.Expr
	aggs    []Agg
	ec      *expr.Ctx
	ts      []types.T

	groups  map[string]int32
	keys    [][]types.Datum // the key values of each group, in group order
	states  []state
	done    bool
	scalar  bool // no GROUP BY: one group even over no rows
	keyBuf  []byte
	gidsBuf []int32
}

var _ exec.Operator = (*hashAggOp)(nil)

// NewHashAgg groups its input by the groupBy expressions and computes aggs
// per group. Output columns: the group keys, then the aggregates. Without
// GROUP BY it produces exactly one row, even over empty input.
func NewHashAgg(in exec.Operator, groupBy []expr.Expr, aggs []Agg, ec *expr.Ctx) exec.Operator {
	ts := make([]types.T, 0, len(groupBy)+len(aggs))
	for _, g := range groupBy {
		ts = append(ts, g.Type())
	}
	for _, a := range aggs {
		ts = append(ts, a.T)
	}
	return &hashAggOp{in: in, groupBy: groupBy, aggs: aggs, ec: ec, ts: ts, scalar: len(groupBy) == 0}
}

func (h *hashAggOp) Types() []types.T { return h.ts }
func (h *hashAggOp) Open(ctx context.Context) error {
	h.groups = map[string]int32{}
	h.states = make([]state, len(h.aggs))
	for i, a := range h.aggs {
		h.states[i] = newState(a)
	}
	return h.in.Open(ctx)
}
func (h *hashAggOp) Close() error { return h.in.Close() }

func (h *hashAggOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if h.done {
		return nil, nil
	}
	h.done = true
	if h.scalar {
		h.keys = append(h.keys, nil)
		h.grow()
	}
	for {
		rec, err := h.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			break
		}
		err = h.consume(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	return h.emit()
}

func (h *hashAggOp) grow() {
	for _, s := range h.states {
		s.grow(len(h.keys))
	}
}

func (h *hashAggOp) consume(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if cap(h.gidsBuf) < n {
		h.gidsBuf = make([]int32, n)
	}
	gids := h.gidsBuf[:n]
	if !h.scalar {
		keyCols := make([]arrow.Array, len(h.groupBy))
		for i, g := range h.groupBy {
			a, err := g.Eval(h.ec, rec)
			if err != nil {
				for _, k := range keyCols[:i] {
					k.Release()
				}
				return err
			}
			keyCols[i] = a
		}
		writers := make([]func([]byte, int) []byte, len(keyCols))
		for i, a := range keyCols {
			writers[i] = keyWriter(h.groupBy[i].Type(), a)
		}
		before := len(h.keys)
		for r := 0; r < n; r++ {
			buf := h.keyBuf[:0]
			for _, w := range writers {
				buf = w(buf, r)
			}
			h.keyBuf = buf
			g, ok := h.groups[string(buf)]
			if !ok {
				g = int32(len(h.keys))
				h.groups[string(buf)] = g
				row := make([]types.Datum, len(keyCols))
				for i, a := range keyCols {
					row[i] = types.DatumAt(h.groupBy[i].Type(), a, r)
				}
				h.keys = append(h.keys, row)
			}
			gids[r] = g
		}
		for _, k := range keyCols {
			k.Release()
		}
		if len(h.keys) > before {
			h.grow()
		}
	} else {
		for r := range gids {
			gids[r] = 0
		}
	}
	for i, a := range h.aggs {
		var arg arrow.Array
		if a.Arg != nil {
			v, err := a.Arg.Eval(h.ec, rec)
			if err != nil {
				return err
			}
			arg = v
		}
		h.states[i].update(gids, arg)
		if arg != nil {
			arg.Release()
		}
	}
	return nil
}

// keyWriter appends a row's key bytes: a null marker, then the value in a
// form where equal values (and only those) have equal bytes.
func keyWriter(t types.T, a arrow.Array) func([]byte, int) []byte {
	var val func([]byte, int) []byte
	switch t.Kind {
	case types.Bool:
		b := a.(*array.Boolean)
		val = func(buf []byte, i int) []byte {
			if b.Value(i) {
				return append(buf, 1)
			}
			return append(buf, 0)
		}
	case types.Int2:
		v := arrow.GetValues[int16](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint16(buf, uint16(v[i])) }
	case types.Int4, types.Date:
		v := arrow.GetValues[int32](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint32(buf, uint32(v[i])) }
	case types.Int8, types.Time, types.Timestamp, types.TimestampTZ:
		v := arrow.GetValues[int64](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, uint64(v[i])) }
	case types.Float4:
		v := arrow.GetValues[float32](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, floatKey(float64(v[i]))) }
	case types.Float8:
		v := arrow.GetValues[float64](a.Data(), 1)
		val = func(buf []byte, i int) []byte { return binary.LittleEndian.AppendUint64(buf, floatKey(v[i])) }
	case types.Bytea:
		b := a.(*array.Binary)
		val = func(buf []byte, i int) []byte {
			buf = binary.AppendUvarint(buf, uint64(len(b.Value(i))))
			return append(buf, b.Value(i)...)
		}
	case types.Numeric:
		s := a.(*array.String)
		val = func(buf []byte, i int) []byte {
			// 1.50 and 1.5 are one group: key by the normalised value.
			d, _ := types.ParseDec(s.Value(i))
			k := d.U.String() + "e" + itoa(int(d.Scale))
			for d.Scale > 0 && d.U.Sign() != 0 {
				r := d.Rescale(d.Scale - 1)
				back := r.Rescale(d.Scale)
				if back.Cmp(&d) != 0 {
					break
				}
				d = r
				k = d.U.String() + "e" + itoa(int(d.Scale))
			}
			if d.U.Sign() == 0 {
				k = "0"
			}
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			return append(buf, k...)
		}
	default:
		s := a.(*array.String)
		val = func(buf []byte, i int) []byte {
			v := s.Value(i)
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			return append(buf, v...)
		}
	}
	if a.NullN() == 0 {
		return func(buf []byte, i int) []byte { return val(append(buf, 1), i) }
	}
	return func(buf []byte, i int) []byte {
		if a.IsNull(i) {
			return append(buf, 0)
		}
		return val(append(buf, 1), i)
	}
}

// floatKey makes -0 and 0, and all NaNs, group together as in PostgreSQL.
func floatKey(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.Float64bits(math.NaN())
	}
	return math.Float64bits(f)
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}

func (h *hashAggOp) emit() (arrow.RecordBatch, error) {
	ng := len(h.keys)
	cols := make([]arrow.Array, 0, len(h.ts))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	for k, g := range h.groupBy {
		b := expr.NewBuilder(g.Type(), ng)
		for _, row := range h.keys {
			b.Append(row[k])
		}
		cols = append(cols, b.Finish())
	}
	for _, s := range h.states {
		a, err := s.finish()
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(exec.Schema(h.ts), cols, int64(ng))
	release()
	return out, nil
}
