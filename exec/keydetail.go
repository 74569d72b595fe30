package exec

import (
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// keyDetail words a unique violation's DETAIL as PostgreSQL does, with
// the key's values in their SQL text: the storage layer, which found the
// duplicate, knows only their Arrow form. rec holds the rows written, one
// column per table column.
func (t *Target) keyDetail(err error, rec arrow.RecordBatch) error {
	var kv *link.KeyViolation
	if err == nil || !errors.As(err, &kv) {
		return err
	}
	pe := pgerr.From(err)
	vals := make([]string, len(kv.Fields))
	for i, f := range kv.Fields {
		if f >= int(rec.NumCols()) || f >= len(t.Types) {
			return err
		}
		vals[i] = string(types.TextWriter(t.Types[f], rec.Column(f), t.Loc)(nil, kv.Row))
	}
	c := *pe
	c.Detail = "Key (" + strings.Join(kv.Columns, ", ") + ")=(" + strings.Join(vals, ", ") + ") already exists."
	return c.Caused(kv)
}
