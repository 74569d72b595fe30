package engine

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
)

// targetFileSizeOption stores WITH (target_file_size = '256MB') as
// Iceberg's standard write.target-file-size-bytes, which compaction (and
// any engine writing the table) aims its data files at.
func targetFileSizeOption(o parse.Option, props iceberg.Properties) error {
	if o.Column != "" {
		return pgerr.New(pgerr.SyntaxError, "target_file_size takes no ON column").WithPosition(o.ColPos)
	}
	n, ok := parseMemory(o.Value)
	if !ok {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"target_file_size\": %q", o.Value).
			WithHint(`Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`).WithPosition(o.Pos)
	}
	if n < 1 {
		return pgerr.New(pgerr.InvalidParameterValue, "%s B is outside the valid range for parameter \"target_file_size\" (1 B .. %d B)",
			strconv.FormatInt(n, 10), int64(math.MaxInt64)).WithPosition(o.Pos)
	}
	props[table.WriteTargetFileSizeBytesKey] = strconv.FormatInt(n, 10)
	return nil
}

// memoryUnits are PostgreSQL's memory units (guc.c), case-sensitive.
var memoryUnits = []struct {
	name  string
	bytes int64
}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}

// parseMemory reads a size as PostgreSQL reads a memory setting: an
// integer, optionally followed by a unit (bytes when none).
func parseMemory(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
	unit := strings.TrimSpace(s[len(num):])
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil {
		return 0, false
	}
	if unit == "" {
		return n, true
	}
	for _, u := range memoryUnits {
		if u.name == unit {
			if n > math.MaxInt64/u.bytes || n < math.MinInt64/u.bytes {
				return 0, false
			}
			return n * u.bytes, true
		}
	}
	return 0, false
}
