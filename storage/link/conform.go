package link

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/icetable"
)

// conformed passes each batch of seq on in tbl's current schema: a chunk
// in the log keeps the schema it was written in, and an ALTER TABLE may
// have changed the table's since (icetable.Conform matches by field ID).
// An open transaction's rows written before an ALTER, and tail rows not
// yet in Iceberg, so read and commit under the new schema.
func conformed(tbl *table.Table, seq func(yield func(arrow.RecordBatch, error) bool)) func(yield func(arrow.RecordBatch, error) bool) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		defaults, err := icetable.InitialDefaultsOf(tbl.Properties())
		if err != nil {
			yield(nil, err)
			return
		}
		sc := tbl.Schema()
		seq(func(rec arrow.RecordBatch, err error) bool {
			if err != nil {
				return yield(nil, err)
			}
			out, err := icetable.Conform(rec, sc, defaults)
			rec.Release()
			if err != nil {
				yield(nil, err)
				return false
			}
			return yield(out, nil)
		})
	}
}
