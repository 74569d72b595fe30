package expr

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// The comparison loops of the selection kernels (selcmp.go), one per
// operator, spelled out so that each is a tight loop with no call per row
// and a conditional increment the compiler makes branch-free.

// selOrdered appends the rows of sel (nil: 0..len(v)-1) where v[row] op c.
// out must be empty; its array may be sel's.
func selOrdered[T int16 | int32 | int64](op CmpOp, v []T, c T, sel, out []int32) []int32 {
	n := len(v)
	if sel == nil {
		out = room(out, n)
		k := 0
		switch op {
		case EQ:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x == c {
					k++
				}
			}
		case NE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x != c {
					k++
				}
			}
		case LT:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x < c {
					k++
				}
			}
		case LE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x <= c {
					k++
				}
			}
		case GT:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x > c {
					k++
				}
			}
		case GE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x >= c {
					k++
				}
			}
		}
		return out[:k]
	}
	out = room(out, len(sel))
	k := 0
	switch op {
	case EQ:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x == c {
				k++
			}
		}
	case NE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x != c {
				k++
			}
		}
	case LT:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x < c {
				k++
			}
		}
	case LE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x <= c {
				k++
			}
		}
	case GT:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x > c {
				k++
			}
		}
	case GE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x >= c {
				k++
			}
		}
	}
	return out[:k]
}

// selFloat is selOrdered for floats, where NaN is above every number (the
// constant c is not NaN).
func selFloat[T float32 | float64](op CmpOp, v []T, c T, sel, out []int32) []int32 {
	n := len(v)
	if sel == nil {
		out = room(out, n)
		k := 0
		switch op {
		case EQ:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x == c {
					k++
				}
			}
		case NE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x != c {
					k++
				}
			}
		case LT:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x < c {
					k++
				}
			}
		case LE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x <= c {
					k++
				}
			}
		case GT:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x > c || x != x {
					k++
				}
			}
		case GE:
			for i := 0; i < n; i++ {
				x := v[i]
				out[k] = int32(i)
				if x >= c || x != x {
					k++
				}
			}
		}
		return out[:k]
	}
	out = room(out, len(sel))
	k := 0
	switch op {
	case EQ:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x == c {
				k++
			}
		}
	case NE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x != c {
				k++
			}
		}
	case LT:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x < c {
				k++
			}
		}
	case LE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x <= c {
				k++
			}
		}
	case GT:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x > c || x != x {
				k++
			}
		}
	case GE:
		for _, r := range sel {
			x := v[r]
			out[k] = r
			if x >= c || x != x {
				k++
			}
		}
	}
	return out[:k]
}

// selString compares text values with c bytewise (as compareArrays does).
func selString(op CmpOp, a *array.String, c string, sel, out []int32) []int32 {
	n := a.Len()
	offs := a.ValueOffsets()
	// The values buffer as one string: a value is a slice of it, with no
	// copy and none of Value's checks.
	var all string
	if buf := a.Data().Buffers()[2]; buf != nil && buf.Len() > 0 {
		all = unsafe.String(unsafe.SliceData(buf.Bytes()), buf.Len())
	}
	if sel == nil {
		out = room(out, n)
		k := 0
		switch op {
		case EQ:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if len(x) == len(c) && x == c {
					k++
				}
			}
		case NE:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if len(x) != len(c) || x != c {
					k++
				}
			}
		case LT:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if x < c {
					k++
				}
			}
		case LE:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if x <= c {
					k++
				}
			}
		case GT:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if x > c {
					k++
				}
			}
		case GE:
			for i := 0; i < n; i++ {
				x := all[offs[i]:offs[i+1]]
				out[k] = int32(i)
				if x >= c {
					k++
				}
			}
		}
		return out[:k]
	}
	out = room(out, len(sel))
	k := 0
	switch op {
	case EQ:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if len(x) == len(c) && x == c {
				k++
			}
		}
	case NE:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if len(x) != len(c) || x != c {
				k++
			}
		}
	case LT:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if x < c {
				k++
			}
		}
	case LE:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if x <= c {
				k++
			}
		}
	case GT:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if x > c {
				k++
			}
		}
	case GE:
		for _, r := range sel {
			x := all[offs[r]:offs[r+1]]
			out[k] = r
			if x >= c {
				k++
			}
		}
	}
	return out[:k]
}
