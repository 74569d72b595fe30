package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/expr"
)

// Table properties Loam records beside the Iceberg schema for the WITH
// options of CREATE TABLE (sql/engine writes them, the catalog shows them).
const (
	PropRetention       = "loam.retention"
	PropRetentionColumn = "loam.retention.column"
	PropCommitInterval  = "loam.commit-interval"
	// PropSnapshotRetention is snapshot_retention's interval text.
	PropSnapshotRetention = "loam.snapshot-retention"
)

// loamClauses is how the catalog shows a Loam table's own clauses
// (PARTITIONED BY, SORTED BY, WITH), in Loam's SQL spelling.
type loamClauses struct {
	partKey   string // "day(ts), bucket(16, tenant)"; "" when unpartitioned
	sortOrder string // "tenant, model, ts DESC"; "" when unsorted
	retention string // "180 days on ts"; "" when none
	// options are pg_class.reloptions: key=value texts, which psql's \d+
	// prints as "Options:".
	options []string
	// size is the bytes of the current snapshot's data files (the write
	// log's tail not included): pg_table_size and its kin.
	size int64
}

func clausesOf(t *table.Table) loamClauses {
	var lc loamClauses
	if t == nil {
		return lc
	}
	sc := t.Schema()
	colName := func(id int) string {
		if f, ok := sc.FindFieldByID(id); ok {
			return expr.QuoteIdent(f.Name)
		}
		return strconv.Itoa(id)
	}
	spec := t.Spec()
	var keys []string
	for _, pf := range spec.Fields() {
		if len(pf.SourceIDs) != 1 {
			continue
		}
		col := colName(pf.SourceIDs[0])
		switch tr := pf.Transform.(type) {
		case iceberg.IdentityTransform:
			keys = append(keys, col)
		case iceberg.BucketTransform:
			keys = append(keys, "bucket("+strconv.Itoa(tr.NumBuckets)+", "+col+")")
		case iceberg.TruncateTransform:
			keys = append(keys, "truncate("+strconv.Itoa(tr.Width)+", "+col+")")
		default:
			keys = append(keys, tr.String()+"("+col+")") // year, month, day, hour
		}
	}
	lc.partKey = strings.Join(keys, ", ")

	order := t.SortOrder()
	var sorted []string
	for _, sf := range order.Fields() {
		if len(sf.SourceIDs) != 1 {
			continue
		}
		s := colName(sf.SourceIDs[0])
		desc := sf.Direction == table.SortDESC
		if desc {
			s += " DESC"
		}
		// PostgreSQL's defaults (NULLS LAST ascending, FIRST descending)
		// go unsaid, as in SORTED BY.
		if nullsFirst := sf.NullOrder == table.NullsFirst; nullsFirst != desc {
			if nullsFirst {
				s += " NULLS FIRST"
			} else {
				s += " NULLS LAST"
			}
		}
		sorted = append(sorted, s)
	}
	lc.sortOrder = strings.Join(sorted, ", ")

	if snap := t.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		lc.size, _ = strconv.ParseInt(snap.Summary.Properties["total-files-size"], 10, 64)
	}
	props := t.Properties()
	if r := props[PropRetention]; r != "" {
		lc.retention = r + " on " + expr.QuoteIdent(props[PropRetentionColumn])
	}
	if lc.sortOrder != "" {
		lc.options = append(lc.options, "sorted_by=("+lc.sortOrder+")")
	}
	if lc.retention != "" {
		lc.options = append(lc.options, "retention="+lc.retention)
	}
	if ci := props[PropCommitInterval]; ci != "" {
		lc.options = append(lc.options, "commit_interval="+ci)
	}
	if sr := props[PropSnapshotRetention]; sr != "" {
		lc.options = append(lc.options, "snapshot_retention="+sr)
	}
	if n, err := strconv.ParseInt(props[table.WriteTargetFileSizeBytesKey], 10, 64); err == nil {
		lc.options = append(lc.options, "target_file_size="+memorySize(n))
	}
	return lc
}

// partKeyDef is pg_get_partkeydef's text for a partitioned Loam table.
// psql 15 prints it as the "Partition key:" footer of \d and has no other
// footer for plain \d, so the sort order and retention follow as lines of
// their own ("Sort order: …", "Retention: …").
func (lc loamClauses) partKeyDef() string {
	s := lc.partKey
	if lc.sortOrder != "" {
		s += "\nSort order: " + lc.sortOrder
	}
	if lc.retention != "" {
		s += "\nRetention: " + lc.retention
	}
	return s
}

// textArray is the text form of a text[] holding ss.
func textArray(ss []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// sizePretty is pg_size_pretty(bigint): PostgreSQL 15's units and
// rounding (src/backend/utils/adt/dbsize.c).
func sizePretty(size int64) string {
	units := []struct {
		name     string
		limit    int64
		round    bool
		unitbits uint
	}{{"bytes", 10 * 1024, false, 0}, {"kB", 20*1024 - 1, true, 10}, {"MB", 20*1024 - 1, true, 20},
		{"GB", 20*1024 - 1, true, 30}, {"TB", 20*1024 - 1, true, 40}, {"PB", 20*1024 - 1, true, 50}}
	halfRounded := func(x int64) int64 {
		if x < 0 {
			return (x - 1) / 2
		}
		return (x + 1) / 2
	}
	abs := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	for i, u := range units {
		if i == len(units)-1 || abs(size) < u.limit {
			if u.round {
				size = halfRounded(size)
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := units[i+1]
		bits := next.unitbits - u.unitbits
		if next.round {
			bits--
		}
		if u.round {
			bits++
		}
		size /= int64(1) << bits
	}
	return ""
}

// memorySize shows a byte count as PostgreSQL shows a memory setting: in
// the largest unit that holds it exactly ("256MB", "1000B").
func memorySize(n int64) string {
	for _, u := range []struct {
		name string
		bits uint
	}{{"TB", 40}, {"GB", 30}, {"MB", 20}, {"kB", 10}} {
		if n != 0 && n%(1<<u.bits) == 0 {
			return strconv.FormatInt(n>>u.bits, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
