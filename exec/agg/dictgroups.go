package agg

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// dictKeys groups by text keys that may come as dictionary arrays (see
// exec/dict.go): each distinct value gets a query-wide id, looked up once
// per dictionary entry of a batch (batches of one file share their
// dictionary), and rows group by their keys' ids. A key column that comes
// as plain strings in some batch (a file read another way) gets the same
// ids, value by value.
type dictKeys struct {
	is    []bool             // which group keys are so grouped
	ids   []map[string]int32 // per key: value → id
	words [][]string         // per key: id → value
	// per key, the dictionary last seen and its entries' ids
	last  []arrow.Array
	remap [][]int32
	// dense[id0+1][id1+1] is the group of one or two keys' ids (-1 for
	// NULL, so +1), -1 for none yet
	dense [][]int32
	rowID [][]int32 // per key: this batch's rows' ids, -1 for NULL
}

// NewHashAggDict is NewHashAgg where dict[i] says group key i is a bare
// text column that may come as a dictionary array.
func NewHashAggDict(in exec.Operator, groupBy []expr.Expr, aggs []Agg, ec *expr.Ctx, dict []bool) exec.Operator {
	h := NewHashAgg(in, groupBy, aggs, ec).(*hashAggOp)
	d := &dictKeys{is: dict}
	any := false
	for i := range dict {
		d.ids = append(d.ids, map[string]int32{})
		d.words = append(d.words, nil)
		d.last = append(d.last, nil)
		d.remap = append(d.remap, nil)
		d.rowID = append(d.rowID, nil)
		any = any || dict[i]
	}
	if any {
		h.dict = d
	}
	return h
}

// ids fills d.rowID[k] with the rows' ids of key column a.
func (d *dictKeys) idsOf(k int, a arrow.Array) {
	n := a.Len()
	if cap(d.rowID[k]) < n {
		d.rowID[k] = make([]int32, n)
	}
	out := d.rowID[k][:n]
	d.rowID[k] = out
	id := func(v string) int32 {
		g, ok := d.ids[k][v]
		if !ok {
			g = int32(len(d.words[k]))
			v = string([]byte(v)) // v may point into the batch
			d.ids[k][v] = g
			d.words[k] = append(d.words[k], v)
		}
		return g
	}
	switch x := a.(type) {
	case *array.Dictionary:
		dict := x.Dictionary().(*array.String)
		if d.last[k] == nil || d.last[k].Data() != dict.Data() {
			d.last[k] = dict
			d.remap[k] = d.remap[k][:0]
			for e := 0; e < dict.Len(); e++ {
				d.remap[k] = append(d.remap[k], id(dict.Value(e)))
			}
		}
		remap := d.remap[k]
		codes := x.Indices().(*array.Int32).Int32Values()
		for r, c := range codes {
			if x.IsNull(r) {
				out[r] = -1
			} else {
				out[r] = remap[c]
			}
		}
	case *array.String:
		for r := range out {
			if x.IsNull(r) {
				out[r] = -1
			} else {
				out[r] = id(x.Value(r))
			}
		}
	}
}

// datum is key k's value of id g.
func (d *dictKeys) datum(t types.T, k int, g int32) types.Datum {
	if g < 0 {
		return types.Datum{T: t, Null: true}
	}
	return types.Datum{T: t, S: d.words[k][g]}
}

// groups finds the group of each row of a batch with key columns keyCols.
func (h *hashAggOp) dictGroups(keyCols []arrow.Array, gids []int32) {
	d := h.dict
	for k, a := range keyCols {
		if d.is[k] {
			d.idsOf(k, a)
		}
	}
	newGroup := func(r int) int32 {
		g := int32(len(h.keys))
		row := make([]types.Datum, len(keyCols))
		for i, a := range keyCols {
			if d.is[i] {
				row[i] = d.datum(h.groupBy[i].Type(), i, d.rowID[i][r])
			} else {
				row[i] = types.DatumAt(h.groupBy[i].Type(), a, r)
			}
		}
		h.keys = append(h.keys, row)
		return g
	}
	if len(keyCols) <= 2 && allTrue(d.is) {
		// One or two keys' ids index a dense table: no hashing.
		id1 := func(int) int32 { return -1 }
		if len(keyCols) == 2 {
			id1 = func(r int) int32 { return d.rowID[1][r] }
		}
		ids0 := d.rowID[0]
		for r := range gids {
			a, b := int(ids0[r])+1, int(id1(r))+1
			for a >= len(d.dense) {
				d.dense = append(d.dense, nil)
			}
			row := d.dense[a]
			if b < len(row) && row[b] >= 0 {
				gids[r] = row[b]
				continue
			}
			for b >= len(row) {
				row = append(row, -1)
			}
			d.dense[a] = row
			g := newGroup(r)
			row[b] = g
			gids[r] = g
		}
		return
	}
	writers := make([]func([]byte, int) []byte, len(keyCols))
	for i, a := range keyCols {
		if d.is[i] {
			ids := d.rowID[i]
			writers[i] = func(b []byte, r int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(ids[r])) }
		} else {
			writers[i] = exec.KeyWriter(h.groupBy[i].Type(), a)
		}
	}
	for r := range gids {
		buf := h.keyBuf[:0]
		for _, w := range writers {
			buf = w(buf, r)
		}
		h.keyBuf = buf
		g, ok := h.groups[string(buf)]
		if !ok {
			g = newGroup(r)
			h.groups[string(buf)] = g
		}
		gids[r] = g
	}
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}
