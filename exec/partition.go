package exec

import (
	"context"
	"hash/maphash"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/exec/spill"
	"github.com/loamdb/loam/types"
)

// Spilling operators split their rows by a hash of their key into
// spillFanout files and run one file's rows at a time. A file still too
// big is split again on the next bits of the same hash (level), up to
// maxSpillLevel times.
const (
	spillFanout   = 16
	spillBits     = 4
	maxSpillLevel = 64/spillBits - 1
)

var spillSeed = maphash.MakeSeed()

// spillPart is the partition of key bytes at a level of splitting.
func spillPart(key []byte, level int) int {
	return int(maphash.Bytes(spillSeed, key)>>(spillBits*level)) & (spillFanout - 1)
}

// partitionBatch writes each row of rec to the file of its key's
// partition; rows with a NULL key (key reports false) go to the first.
// It reports the number of rows written to each file.
func partitionBatch(ctx context.Context, rec arrow.RecordBatch, key func(r int) ([]byte, bool), level int, files []*spill.File) error {
	var rows [spillFanout][]int32
	n := int(rec.NumRows())
	for r := 0; r < n; r++ {
		p := 0
		if k, ok := key(r); ok {
			p = spillPart(k, level)
		}
		rows[p] = append(rows[p], int32(r))
	}
	for p, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(rs) == n {
			if err := files[p].Write(rec); err != nil {
				return err
			}
			continue
		}
		cols, err := takeCols(ctx, rec, rs)
		if err != nil {
			return err
		}
		part := array.NewRecordBatch(rec.Schema(), cols, int64(len(rs)))
		for _, c := range cols {
			c.Release()
		}
		err = files[p].Write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// budgetOf is the statement's memory budget (nil: unlimited).
func budgetOf(ctx context.Context) *mem.Budget { return mem.FromContext(ctx) }

// The spilling helpers for operators in other packages (hash aggregation).

// SpillFanout is the number of partitions a spilling operator splits into.
const SpillFanout = spillFanout

// MaxSpillLevel is how many times rows may be split again.
const MaxSpillLevel = maxSpillLevel

// SpillFiles makes n empty spill files of ctx's statement.
func SpillFiles(ctx context.Context, n int) ([]*spill.File, error) { return spillFiles(ctx, n) }

// RemoveSpillFiles removes files (nil ones are skipped).
func RemoveSpillFiles(fs []*spill.File) { removeFiles(fs) }

// PartitionBatch writes each row of rec to the file of its key's
// partition at level (see partitionBatch).
func PartitionBatch(ctx context.Context, rec arrow.RecordBatch, key func(r int) ([]byte, bool), level int, files []*spill.File) error {
	return partitionBatch(ctx, rec, key, level, files)
}

// NewSpillSource reads a spill file back as an operator of types ts.
func NewSpillSource(f *spill.File, ts []types.T) Operator { return newSpillSource(f, ts) }

// TakeRows is the batch of rec's rows at rows, in that order.
func TakeRows(ctx context.Context, rec arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	if rows == nil {
		rows = []int32{}
	}
	cols, err := takeCols(ctx, rec, rows)
	if err != nil {
		return nil, err
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
