package wire

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// appendFunc appends row i of a column to buf. The row loop calls it only
// for non-null rows; it never type-switches per value.
type appendFunc func(buf []byte, i int) []byte

// checkArrow verifies that arr carries t the way types.T.Arrow says, so an
// encoder's type assertions cannot fail.
func checkArrow(t types.T, arr arrow.Array) error {
	if got, want := arr.DataType().ID(), t.Arrow().ID(); got != want {
		return pgerr.New(pgerr.InternalError, "result column of type %s arrived as Arrow %s, want %s", t, arr.DataType(), t.Arrow())
	}
	return nil
}

// textEncoder picks the text-format encoder for a column.
func textEncoder(t types.T, arr arrow.Array, loc *time.Location) (appendFunc, error) {
	if err := checkArrow(t, arr); err != nil {
		return nil, err
	}
	return types.TextWriter(t, arr, loc), nil
}
