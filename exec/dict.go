package exec

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Low-cardinality text columns may travel from the scan as Arrow
// Dictionary arrays (int32 codes into the file's dictionary): a filter
// compares a constant with each dictionary entry once and then tests
// codes, and hash aggregation groups by code. Only operators built to
// expect them see them: the builder lets a scan keep a column as a
// dictionary when every operator above it up to a DictDecode understands
// it, and DictDecode turns dictionaries into plain strings for the rest.

// IsDict reports whether a is a dictionary-encoded column.
func IsDict(a arrow.Array) bool {
	_, ok := a.(*array.Dictionary)
	return ok
}

// DecodeDict returns a plain string array of a dictionary array's values,
// or a itself (retained) when it is not a dictionary.
func DecodeDict(a arrow.Array) arrow.Array {
	d, ok := a.(*array.Dictionary)
	if !ok {
		a.Retain()
		return a
	}
	dict, ok := d.Dictionary().(*array.String)
	if !ok {
		panic("exec: dictionary of non-string values")
	}
	codes := d.Indices().(*array.Int32).Int32Values()
	n := d.Len()
	offs := make([]int32, n+1)
	size := 0
	for i, k := range codes {
		if d.IsValid(i) {
			size += dict.ValueLen(int(k))
		}
	}
	buf := make([]byte, 0, size)
	for i, k := range codes {
		if d.IsValid(i) {
			buf = append(buf, dict.Value(int(k))...)
		}
		offs[i+1] = int32(len(buf))
	}
	var valid *memory.Buffer
	if d.NullN() > 0 {
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for i := 0; i < n; i++ {
			if d.IsValid(i) {
				bitutil.SetBit(bits, i)
			}
		}
		valid = memory.NewBufferBytes(bits)
	}
	data := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid,
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(buf)}, nil, d.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// DecodeDicts returns rec with its dictionary columns as plain strings,
// or rec itself (retained) when it has none.
func DecodeDicts(rec arrow.RecordBatch) arrow.RecordBatch {
	has := false
	for _, c := range rec.Columns() {
		has = has || IsDict(c)
	}
	if !has {
		rec.Retain()
		return rec
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cols[i] = DecodeDict(c)
	}
	out := array.NewRecordBatch(schemaOf(cols), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// schemaOf is a batch schema for cols, named as Schema names them.
func schemaOf(cols []arrow.Array) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: colName(i), Type: c.DataType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

type dictDecodeOp struct{ in Operator }

// NewDictDecode passes its input's batches on with dictionary columns
// decoded to plain strings, for operators that do not understand them.
func NewDictDecode(in Operator) Operator { return &dictDecodeOp{in: in} }

func (d *dictDecodeOp) Types() []types.T               { return d.in.Types() }
func (d *dictDecodeOp) Open(ctx context.Context) error { return d.in.Open(ctx) }
func (d *dictDecodeOp) Close() error                   { return d.in.Close() }
func (d *dictDecodeOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := d.in.Next(ctx)
	if rec == nil || err != nil {
		return nil, err
	}
	defer rec.Release()
	return DecodeDicts(rec), nil
}

// DictCmp is a filter conjunct comparing a text column with a constant:
// Col Op Val.
type DictCmp struct {
	Col int
	Op  expr.CmpOp
	Val string
}

// AsDictCmp recognises a conjunct of the form col op 'text' or 'text' op
// col on a text or varchar column.
func AsDictCmp(e expr.Expr) (DictCmp, bool) {
	c, ok := e.(*expr.Compare)
	if !ok {
		return DictCmp{}, false
	}
	col, lok := c.L.(*expr.Col)
	k, rok := c.R.(*expr.Const)
	op := c.Op
	if !lok || !rok {
		col, lok = c.R.(*expr.Col)
		k, rok = c.L.(*expr.Const)
		op = op.Flip()
	}
	if !lok || !rok || k.D.Null || !DictKind(col.T) || col.T.Kind != k.D.T.Kind {
		return DictCmp{}, false
	}
	return DictCmp{Col: col.Idx, Op: op, Val: k.D.S}, true
}

// DictKind reports whether a column of type t may travel as a dictionary:
// text whose comparisons and grouping are by bytes.
func DictKind(t types.T) bool {
	return t.Kind == types.Text || t.Kind == types.Varchar
}

// dictHits caches, for the dictionary last seen, which entries satisfy a
// comparison: batches of one file share its dictionary.
type dictHits struct {
	dict arrow.Array
	hits []bool
}

// match sets out[i] to false for each row of a that does not satisfy c
// (NULL does not).
func (h *dictHits) match(a arrow.Array, c DictCmp, out []bool) {
	d, ok := a.(*array.Dictionary)
	if !ok {
		s := a.(*array.String)
		for i := range out {
			out[i] = out[i] && s.IsValid(i) && c.Op.Holds(strings.Compare(s.Value(i), c.Val))
		}
		return
	}
	dict := d.Dictionary().(*array.String)
	if h.dict == nil || h.dict.Data() != dict.Data() {
		h.dict = dict
		h.hits = h.hits[:0]
		for k := 0; k < dict.Len(); k++ {
			h.hits = append(h.hits, dict.IsValid(k) && c.Op.Holds(strings.Compare(dict.Value(k), c.Val)))
		}
	}
	codes := d.Indices().(*array.Int32).Int32Values()
	hits := h.hits
	if d.NullN() == 0 {
		for i, k := range codes {
			out[i] = out[i] && hits[k]
		}
		return
	}
	for i, k := range codes {
		out[i] = out[i] && d.IsValid(i) && hits[k]
	}
}

// DictEncode is a plain string array as a dictionary array of its distinct
// values (for tests and benchmarks of the dictionary paths).
func DictEncode(s *array.String) arrow.Array {
	codes := array.NewInt32Builder(memory.DefaultAllocator)
	defer codes.Release()
	words := array.NewStringBuilder(memory.DefaultAllocator)
	defer words.Release()
	seen := map[string]int32{}
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			codes.AppendNull()
			continue
		}
		k, ok := seen[s.Value(i)]
		if !ok {
			k = int32(len(seen))
			seen[s.Value(i)] = k
			words.Append(s.Value(i))
		}
		codes.Append(k)
	}
	idx, dict := codes.NewArray(), words.NewArray()
	defer idx.Release()
	defer dict.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, dict)
}
