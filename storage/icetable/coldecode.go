package icetable

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// validity collects a column's null bitmap: nil until the first NULL.
type validity struct {
	bits  []byte
	n     int
	nulls int
}

// add records rows rows of definition levels defs (nil: none NULL).
func (v *validity) add(defs []byte, rows int) {
	if defs != nil && v.bits == nil {
		for _, d := range defs[:rows] {
			if d == 0 {
				v.bits = make([]byte, bitutil.BytesForBits(int64(v.n+rows)))
				bitutil.SetBitsTo(v.bits, 0, int64(v.n), true)
				break
			}
		}
	}
	if v.bits == nil {
		v.n += rows
		return
	}
	if need := int(bitutil.BytesForBits(int64(v.n + rows))); need > len(v.bits) {
		v.bits = append(v.bits, make([]byte, max(need-len(v.bits), len(v.bits)))...)
	}
	for i := 0; i < rows; i++ {
		if defs == nil || defs[i] != 0 {
			bitutil.SetBit(v.bits, v.n+i)
		} else {
			v.nulls++
		}
	}
	v.n += rows
}

func (v *validity) buffer() *memory.Buffer {
	if v.bits == nil || v.nulls == 0 {
		return nil
	}
	return memory.NewBufferBytes(v.bits)
}

// pageValues are a page's non-NULL values: through its dictionary when
// the page holds codes.
type pageValues[T any] struct {
	vals []T     // the values, or the dictionary's
	idx  []int32 // codes into vals, for a dictionary page
}

// fixedDecoder decodes a column of fixed-width values.
type fixedDecoder[T arrow.FixedWidthType] struct {
	typ  arrow.DataType
	vals []T
	v    validity
	get  func(*encoding.Values) []T
}

func newFixedDecoder[T arrow.FixedWidthType](typ arrow.DataType, get func(*encoding.Values) []T) *fixedDecoder[T] {
	return &fixedDecoder[T]{typ: typ, get: get}
}

func (d *fixedDecoder[T]) page(p parquet.Page, defs []byte, rows int) error {
	pv := fixedValues(p, d.get)
	d.v.add(defs, rows)
	if d.v.bits == nil {
		defs = nil // no NULL so far, none in this page
	}
	if defs == nil && pv.idx == nil {
		d.vals = append(d.vals, pv.vals[:rows]...)
		return nil
	}
	for _, k := range pv.idx {
		if int(k) >= len(pv.vals) {
			return fmt.Errorf("dictionary code %d out of range", k)
		}
	}
	base := len(d.vals)
	d.vals = slices.Grow(d.vals, rows)[:base+rows]
	out := d.vals[base:]
	if defs == nil {
		for i, k := range pv.idx[:rows] {
			out[i] = pv.vals[k]
		}
		return nil
	}
	var zero T
	j := 0
	for i := range out {
		if defs[i] == 0 {
			out[i] = zero
			continue
		}
		if pv.idx != nil {
			out[i] = pv.vals[pv.idx[j]]
		} else {
			out[i] = pv.vals[j]
		}
		j++
	}
	return nil
}

func fixedValues[T any](p parquet.Page, get func(*encoding.Values) []T) pageValues[T] {
	data := p.Data()
	if dict := p.Dictionary(); dict != nil {
		dv := dict.Page().Data()
		return pageValues[T]{vals: get(&dv), idx: data.Int32()}
	}
	return pageValues[T]{vals: get(&data)}
}

func (d *fixedDecoder[T]) finish() arrow.Array {
	data := array.NewData(d.typ, d.v.n, []*memory.Buffer{d.v.buffer(), memory.NewBufferBytes(arrow.GetBytes(d.vals))}, nil, d.v.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func (d *fixedDecoder[T]) release() {}

func parquetInt32s(v *encoding.Values) []int32   { return v.Int32() }
func parquetInt64s(v *encoding.Values) []int64   { return v.Int64() }
func parquetFloats(v *encoding.Values) []float32 { return v.Float() }
func parquetDoubles(v *encoding.Values) []float64 {
	return v.Double()
}

// stringDecoder decodes a string column: as codes into one dictionary
// merged from the chunks' when asked to and every page is dictionary
// encoded, else as plain strings.
type stringDecoder struct {
	dict  bool
	v     validity
	codes []int32
	// The merged dictionary, and where each chunk dictionary's entries
	// went in it (chunk dictionaries are found by identity).
	words   map[string]int32
	dictOff []int32
	dictBuf []byte
	lastDic parquet.Dictionary
	remap   []int32
	// Plain strings.
	offs []int32
	buf  []byte
}

func newStringDecoder(dict bool) *stringDecoder {
	d := &stringDecoder{dict: dict, offs: []int32{0}}
	if dict {
		d.words = map[string]int32{}
		d.dictOff = []int32{0}
	}
	return d
}

func (d *stringDecoder) page(p parquet.Page, defs []byte, rows int) error {
	pd := p.Data()
	pdict := p.Dictionary()
	if d.dict && pdict == nil {
		d.toPlain() // a chunk fell back to plain pages
	}
	d.v.add(defs, rows)
	if d.v.bits == nil {
		defs = nil // no NULL so far, none in this page
	}
	if pdict != nil {
		dv := pdict.Page().Data()
		data, offs := dv.ByteArray()
		idx := pd.Int32()
		for _, k := range idx {
			if int(k)+1 >= len(offs) {
				return fmt.Errorf("dictionary code %d out of range", k)
			}
		}
		if d.dict {
			d.appendCodes(pdict, data, offs, idx, defs, rows)
			return nil
		}
		d.appendPlain(data, offs, idx, defs, rows)
		return nil
	}
	data, offs := pd.ByteArray()
	d.appendPlain(data, offs, nil, defs, rows)
	return nil
}

// appendCodes adds a dictionary page's rows as codes of the merged
// dictionary.
func (d *stringDecoder) appendCodes(pdict parquet.Dictionary, data []byte, offs []uint32, idx []int32, defs []byte, rows int) {
	if pdict != d.lastDic {
		d.lastDic = pdict
		d.remap = d.remap[:0]
		for k := 0; k+1 < len(offs); k++ {
			w := data[offs[k]:offs[k+1]]
			code, ok := d.words[string(w)]
			if !ok {
				code = int32(len(d.dictOff) - 1)
				d.words[string(w)] = code
				d.dictBuf = append(d.dictBuf, w...)
				d.dictOff = append(d.dictOff, int32(len(d.dictBuf)))
			}
			d.remap = append(d.remap, code)
		}
	}
	j := 0
	for i := 0; i < rows; i++ {
		if defs != nil && defs[i] == 0 {
			d.codes = append(d.codes, 0)
			continue
		}
		d.codes = append(d.codes, d.remap[idx[j]])
		j++
	}
}

// appendPlain adds rows as plain strings: data[offs[k]:offs[k+1]] for the
// k-th value, or for code idx[k] when idx is not nil.
func (d *stringDecoder) appendPlain(data []byte, offs []uint32, idx []int32, defs []byte, rows int) {
	d.offs = slices.Grow(d.offs, rows)
	if idx == nil && defs == nil {
		// Plain values, none NULL: one copy of the bytes.
		base := int32(len(d.buf)) - int32(offs[0])
		d.buf = append(d.buf, data[offs[0]:offs[rows]]...)
		for _, o := range offs[1 : rows+1] {
			d.offs = append(d.offs, base+int32(o))
		}
		return
	}
	j := 0
	for i := 0; i < rows; i++ {
		if defs == nil || defs[i] != 0 {
			k := int32(j)
			if idx != nil {
				k = idx[j]
			}
			d.buf = append(d.buf, data[offs[k]:offs[k+1]]...)
			j++
		}
		d.offs = append(d.offs, int32(len(d.buf)))
	}
}

// toPlain turns the codes so far into plain strings.
func (d *stringDecoder) toPlain() {
	for i, k := range d.codes {
		if d.v.bits == nil || bitutil.BitIsSet(d.v.bits, i) {
			d.buf = append(d.buf, d.dictBuf[d.dictOff[k]:d.dictOff[k+1]]...)
		}
		d.offs = append(d.offs, int32(len(d.buf)))
	}
	d.dict, d.codes, d.words = false, nil, nil
}

func (d *stringDecoder) finish() arrow.Array {
	if d.dict {
		dictData := array.NewData(arrow.BinaryTypes.String, len(d.dictOff)-1,
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.dictOff)), memory.NewBufferBytes(d.dictBuf)}, nil, 0, 0)
		defer dictData.Release()
		data := array.NewData(DictString, d.v.n, []*memory.Buffer{d.v.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.codes))}, nil, d.v.nulls, 0)
		data.SetDictionary(dictData)
		defer data.Release()
		return array.MakeFromData(data)
	}
	data := array.NewData(arrow.BinaryTypes.String, d.v.n,
		[]*memory.Buffer{d.v.buffer(), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(d.offs)), memory.NewBufferBytes(d.buf)}, nil, d.v.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func (d *stringDecoder) release() {}
