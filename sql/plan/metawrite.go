package plan

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// MetaTableWrite turns the "does not exist" error of a write to rv into
// the error of writing a metadata table ("t$files"), which is read-only,
// when rv names one; else it returns err. PostgreSQL's wording for a
// relation that cannot be written (a materialized view) is 42809 "cannot
// change …", and "cannot copy to …" for COPY FROM.
func MetaTableWrite(ctx context.Context, cat Catalog, rv *pg.RangeVar, err error, copyFrom, copyTo bool) error {
	if pgerr.Code(err) != pgerr.UndefinedTable {
		return err
	}
	if ti, _ := MetaTable(ctx, cat, rv.Schemaname, rv.Relname); ti == nil {
		return err
	}
	switch {
	case copyFrom:
		return pgerr.New(pgerr.WrongObjectType, "cannot copy to metadata table %q", rv.Relname)
	case copyTo:
		return pgerr.New(pgerr.WrongObjectType, "cannot copy from metadata table %q", rv.Relname).
			WithHint("Try the COPY (SELECT ...) TO variant.")
	}
	return pgerr.New(pgerr.WrongObjectType, "cannot change metadata table %q", rv.Relname)
}
