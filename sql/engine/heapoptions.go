package engine

import (
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
)

// PostgreSQL's heap storage parameters (reloptions) that CREATE TABLE …
// WITH (…) may name. They tune the heap's page layout and autovacuum,
// neither of which Loam has (rows go to Parquet files, upkeep is Loam's
// own), so a table that names them is created as if it had not: pgbench
// -i creates its tables WITH (fillfactor=100), and dumps of tuned
// PostgreSQL tables carry such clauses too.
var heapOptions = map[string]bool{
	"fillfactor":                            true,
	"toast_tuple_target":                    true,
	"parallel_workers":                      true,
	"autovacuum_enabled":                    true,
	"autovacuum_vacuum_threshold":           true,
	"autovacuum_vacuum_insert_threshold":    true,
	"autovacuum_analyze_threshold":          true,
	"autovacuum_vacuum_scale_factor":        true,
	"autovacuum_vacuum_insert_scale_factor": true,
	"autovacuum_analyze_scale_factor":       true,
	"autovacuum_vacuum_cost_delay":          true,
	"autovacuum_vacuum_cost_limit":          true,
	"autovacuum_freeze_min_age":             true,
	"autovacuum_freeze_max_age":             true,
	"autovacuum_freeze_table_age":           true,
	"autovacuum_multixact_freeze_min_age":   true,
	"autovacuum_multixact_freeze_max_age":   true,
	"autovacuum_multixact_freeze_table_age": true,
	"log_autovacuum_min_duration":           true,
	"user_catalog_table":                    true,
	"vacuum_index_cleanup":                  true,
	"vacuum_truncate":                       true,
}

// heapOption reports whether o is one of PostgreSQL's heap storage
// parameters, and checks fillfactor's value as PostgreSQL does, without a
// position (the one
// pgbench and pg_dump output set most).
func heapOption(o parse.Option) (bool, error) {
	key, toast := strings.CutPrefix(o.Key, "toast.")
	if !heapOptions[key] || toast && (key == "fillfactor" || key == "toast_tuple_target" || key == "parallel_workers") {
		return false, nil
	}
	if o.Key == "fillfactor" {
		n, err := strconv.Atoi(strings.TrimSpace(o.Value))
		if err != nil {
			return true, pgerr.New(pgerr.InvalidParameterValue, "invalid value for integer option \"fillfactor\": %s", o.Value)
		}
		if n < 10 || n > 100 {
			e := pgerr.New(pgerr.InvalidParameterValue, "value %s out of bounds for option \"fillfactor\"", o.Value)
			e.Detail = "Valid values are between \"10\" and \"100\"."
			return true, e
		}
	}
	return true, nil
}
