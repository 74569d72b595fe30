package jsonb

import (
	"encoding/binary"
	"fmt"

	"github.com/loamdb/loam/types"
)

// Check reports whether b is exactly one well-formed value: every length
// and offset in bounds and in order, keys unique and in jsonb's order,
// numbers in numeric's output form. Bytes from anywhere but Encode must
// pass it before the accessors read them.
func Check(b []byte) error {
	return check(Value(b), 0)
}

func check(v Value, depth int) error {
	if len(v) == 0 {
		return fmt.Errorf("jsonb: empty value")
	}
	if depth > maxDepth {
		return fmt.Errorf("jsonb: nesting too deep")
	}
	switch v[0] {
	case Null, False, True:
		if len(v) != 1 {
			return fmt.Errorf("jsonb: %d trailing bytes after a literal", len(v)-1)
		}
		return nil
	case String, Number:
		n, w := uvarint(v[1:])
		if w <= 0 || uint64(len(v)-1-w) != n {
			return fmt.Errorf("jsonb: bad scalar length")
		}
		if v[0] == Number {
			return checkNumber(string(v[1+w:]))
		}
		return nil
	case Array, Object:
		return checkContainer(v, depth)
	}
	return fmt.Errorf("jsonb: unknown tag %d", v[0])
}

func checkNumber(s string) error {
	e := encoder{s: s}
	if !e.number() || e.i != len(s) {
		return fmt.Errorf("jsonb: bad number %q", s)
	}
	d, err := types.ParseDec(s)
	if err == nil && d.String() != s {
		return fmt.Errorf("jsonb: number %q not in normal form", s)
	}
	return nil
}

func checkContainer(v Value, depth int) error {
	tables := 1
	if v[0] == Object {
		tables = 2
	}
	if len(v) < base {
		return fmt.Errorf("jsonb: short container")
	}
	c := uint64(binary.LittleEndian.Uint32(v[1:]))
	if uint64(len(v)-base) < uint64(tables)*4*c {
		return fmt.Errorf("jsonb: bad container count")
	}
	n := int(c)
	room := len(v) - base - tables*4*n // the areas' bytes
	// Each table's ends must rise, and the areas fill the room exactly.
	total := 0
	for t := 0; t < tables; t++ {
		prev := 0
		for i := 0; i < n; i++ {
			e := end(v, len(v)-4*n*(tables-t)+0, i)
			if e < prev || e > room {
				return fmt.Errorf("jsonb: bad offset")
			}
			prev = e
		}
		total += prev
	}
	if total != room {
		return fmt.Errorf("jsonb: container length mismatch")
	}
	if v[0] == Array {
		for i := 0; i < n; i++ {
			if err := check(v.Elem(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	var prev []byte
	for i := 0; i < n; i++ {
		k, m := v.Member(i)
		if i > 0 && !KeyLess(string(prev), string(k)) {
			return fmt.Errorf("jsonb: keys out of order")
		}
		prev = k
		if err := check(m, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// uvarint reads a length in its shortest form only, so that one value has
// one encoding; w ≤ 0 otherwise.
func uvarint(b []byte) (uint64, int) {
	n, w := binary.Uvarint(b)
	if w > 0 && w != len(binary.AppendUvarint(nil, n)) {
		return 0, -1
	}
	return n, w
}
