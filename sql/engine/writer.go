package engine

import (
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
)

// One writer per table (docs/design.md, "Tables outside engines write"):
// CREATE TABLE … WITH (writer = 'external') makes a table that outside
// engines commit through the Iceberg REST catalog and Loam only reads;
// writer = 'loam', the default, is a table Loam's link writes. The
// writer is kept in the table's settings row (meta.TableSettings.Writer),
// where the REST catalog looks too before it takes an outside commit.

// writerOption checks WITH (writer = …) and returns the meta.Writer* it
// names.
func writerOption(o parse.Option) (string, error) {
	if o.Column != "" {
		return "", pgerr.New(pgerr.SyntaxError, "writer takes no ON column").WithPosition(o.ColPos)
	}
	switch o.Value {
	case meta.WriterLoam, meta.WriterExternal:
		return o.Value, nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid writer %q: a table is written by 'loam' (the default) or by 'external' engines through the REST catalog", o.Value).WithPosition(o.Pos)
}

// tableWriter is the writer the clauses name, "" (Loam's) when they name
// none.
func tableWriter(tc *parse.TableClauses) string {
	w := ""
	if tc == nil {
		return w
	}
	for _, o := range tc.Options {
		if o.Key == "writer" {
			w = o.Value
		}
	}
	return w
}

// externalRefused are the options that ask Loam's link or upkeep to do
// something to a table's data, which Loam never does to a table outside
// engines write: taken silently they would never apply.
var externalRefused = map[string]bool{
	"retention": true, "snapshot_retention": true, "commit_interval": true, "merge": true,
}

// checkExternalOptions refuses those options beside writer = 'external'.
func checkExternalOptions(tc *parse.TableClauses) error {
	if tableWriter(tc) != meta.WriterExternal {
		return nil
	}
	for _, o := range tc.Options {
		if externalRefused[o.Key] {
			return pgerr.New(pgerr.InvalidParameterValue, "%s does not apply to a table with writer = 'external': the outside engines that write it maintain it", o.Key).WithPosition(o.Pos)
		}
	}
	return nil
}

// refuseExternalAs refuses CREATE TABLE … AS with writer = 'external':
// its rows would be Loam's write to a table only outside engines write.
func refuseExternalAs(tc *parse.TableClauses) error {
	if tableWriter(tc) != meta.WriterExternal {
		return nil
	}
	pos := 0
	for _, o := range tc.Options {
		if o.Key == "writer" {
			pos = o.Pos
		}
	}
	return pgerr.New(pgerr.InvalidParameterValue, "CREATE TABLE … AS cannot make a table with writer = 'external': Loam does not write such a table; create it empty and let the outside engines fill it").WithPosition(pos)
}
