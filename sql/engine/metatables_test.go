package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/sql/engine"
)

// The metadata tables' columns are Trino's Iceberg connector's (its
// SnapshotsTable, HistoryTable, FilesTable, PartitionsTable, ManifestsTable
// and RefsTable), with Trino's types mapped as docs/metadata-tables.md
// says: map and row to jsonb, array(bigint) and array(integer) to arrays,
// array(row) to jsonb, varbinary to bytea, json to jsonb.
var trinoColumns = map[string][]string{
	"snapshots": {"committed_at timestamp with time zone", "snapshot_id bigint", "parent_id bigint",
		"operation character varying", "manifest_list character varying", "summary jsonb"},
	"history": {"made_current_at timestamp with time zone", "snapshot_id bigint", "parent_id bigint",
		"is_current_ancestor boolean"},
	"files": {"content integer", "file_path character varying", "file_format character varying", "spec_id integer",
		"partition jsonb", "record_count bigint", "file_size_in_bytes bigint", "column_sizes jsonb",
		"value_counts jsonb", "null_value_counts jsonb", "nan_value_counts jsonb", "lower_bounds jsonb",
		"upper_bounds jsonb", "key_metadata bytea", "split_offsets bigint[]", "equality_ids integer[]",
		"sort_order_id integer", "readable_metrics jsonb"},
	"partitions": {"partition jsonb", "record_count bigint", "file_count bigint", "total_size bigint", "data jsonb"},
	"manifests": {"path character varying", "length bigint", "partition_spec_id integer", "added_snapshot_id bigint",
		"added_data_files_count integer", "added_rows_count bigint", "existing_data_files_count integer",
		"existing_rows_count bigint", "deleted_data_files_count integer", "deleted_rows_count bigint",
		"partition_summaries jsonb"},
	"refs": {"name character varying", "type character varying", "snapshot_id bigint",
		"max_reference_age_in_ms bigint", "min_snapshots_to_keep integer", "max_snapshot_age_in_ms bigint"},
}

func columnList(cols []engine.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name + " " + c.Type.String()
	}
	return out
}

func TestMetadataTableColumns(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (id int, day date, v text) PARTITIONED BY (day)`)
	mustRun(t, s, `CREATE TABLE plain (id int, v text)`)
	mustRun(t, s, `CREATE TABLE onlykey (day date) PARTITIONED BY (day)`)
	for kind, want := range trinoColumns {
		t.Run(kind, func(t *testing.T) {
			r := mustRun(t, s, fmt.Sprintf(`SELECT * FROM "ev$%s"`, kind))
			if got := columnList(r.cols); strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("ev$%s columns\n got %v\nwant %v", kind, got, want)
			}
			// Unpartitioned, $files and $partitions have no partition
			// column, as in Trino.
			wantPlain := want
			if kind == "files" || kind == "partitions" {
				wantPlain = nil
				for _, c := range want {
					if !strings.HasPrefix(c, "partition ") {
						wantPlain = append(wantPlain, c)
					}
				}
			}
			r = mustRun(t, s, fmt.Sprintf(`SELECT * FROM plain$%s`, kind))
			if got := columnList(r.cols); strings.Join(got, ", ") != strings.Join(wantPlain, ", ") {
				t.Errorf("plain$%s columns\n got %v\nwant %v", kind, got, wantPlain)
			}
		})
	}
	// $partitions' data summarizes the columns that are not identity
	// partition sources; with none, Trino has no data column.
	r := mustRun(t, s, `SELECT * FROM "onlykey$partitions"`)
	if got, want := strings.Join(columnList(r.cols), ", "), "partition jsonb, record_count bigint, file_count bigint, total_size bigint"; got != want {
		t.Errorf("onlykey$partitions columns %s, want %s", got, want)
	}
}

func TestMetadataTableErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (id int, day date) PARTITIONED BY (day)`)
	mustRun(t, s, `CREATE VIEW evv AS SELECT * FROM ev`)
	for _, c := range []struct{ sql, code, msg string }{
		{`SELECT * FROM "ev$foo"`, "42P01", `relation "ev$foo" does not exist`},
		{`SELECT * FROM "nope$files"`, "42P01", `relation "nope$files" does not exist`},
		{`SELECT * FROM "evv$files"`, "42P01", `relation "evv$files" does not exist`},
		{`SELECT * FROM other."ev$files"`, "42P01", `relation "other.ev$files" does not exist`},
		{`INSERT INTO "ev$files" (content) VALUES (1)`, "42809", `cannot change metadata table "ev$files"`},
		{`COPY "ev$files" TO STDOUT`, "42809", `cannot copy from metadata table "ev$files"`},
	} {
		_, err := runSQL(context.Background(), s, c.sql)
		if sqlstate(err) != c.code {
			t.Errorf("%s: %v (SQLSTATE %s), want %s", c.sql, err, sqlstate(err), c.code)
			continue
		}
		if c.msg != "" && err.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.sql, err.Error(), c.msg)
		}
	}
	_, err := copyIn(t, s, `COPY "ev$files" FROM STDIN`, strings.NewReader(""))
	if sqlstate(err) != "42809" || err.Error() != `cannot copy to metadata table "ev$files"` {
		t.Errorf("COPY FROM: %v (SQLSTATE %s)", err, sqlstate(err))
	}
	// A real relation named like a metadata table wins.
	mustRun(t, s, `CREATE TABLE "ev$refs" (x int)`)
	mustRun(t, s, `INSERT INTO "ev$refs" VALUES (7)`)
	if r := mustRun(t, s, `SELECT x FROM "ev$refs"`); show(r.rows) != "7\n" {
		t.Errorf(`"ev$refs" as a table: %s`, show(r.rows))
	}
}

// TestMetadataTables checks each metadata table against iceberg-go's own
// reading of the table's metadata after a few commits.
func TestMetadataTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (id int, day date, v text, f float8) PARTITIONED BY (day)`)
	mustRun(t, s, `INSERT INTO ev VALUES (1, '2024-01-01', 'a', 1.5), (2, '2024-01-02', 'b', NULL)`)
	mustRun(t, s, `CHECKPOINT`)
	mustRun(t, s, `INSERT INTO ev VALUES (3, '2024-01-02', 'c', 'NaN'), (4, '2024-01-03', NULL, 2)`)
	mustRun(t, s, `CHECKPOINT`)

	// Rows only in the write log are in no snapshot: $files leaves them
	// out until CHECKPOINT commits them.
	mustRun(t, s, `INSERT INTO ev VALUES (5, '2024-01-03', 'e', 3)`)
	if r := mustRun(t, s, `SELECT (SELECT sum(record_count) FROM "ev$files"), (SELECT count(*) FROM ev)`); show(r.rows) != "4 | 5\n" {
		t.Errorf("before CHECKPOINT: files hold, table has %s; want 4 | 5", show(r.rows))
	}
	mustRun(t, s, `CHECKPOINT`)
	if r := mustRun(t, s, `SELECT (SELECT sum(record_count) FROM "ev$partitions"), (SELECT sum(record_count) FROM ev$files), (SELECT count(*) FROM ev)`); show(r.rows) != "5 | 5 | 5\n" {
		t.Errorf("after CHECKPOINT: partitions, files, table hold %s; want 5 | 5 | 5", show(r.rows))
	}

	snaps := mustRun(t, s, `SELECT snapshot_id, coalesce(parent_id::text, 'NULL'), operation, manifest_list, summary->>'total-records' FROM "ev$snapshots" ORDER BY committed_at, snapshot_id`).rows
	history := mustRun(t, s, `SELECT snapshot_id, is_current_ancestor, made_current_at >= lag(made_current_at, 1, made_current_at) OVER () FROM "ev$history"`).rows
	files := mustRun(t, s, `SELECT file_path, record_count, file_size_in_bytes, partition->>'day', content, file_format FROM ev$files ORDER BY file_path`).rows
	parts := mustRun(t, s, `SELECT partition->>'day', record_count, file_count, total_size, data->'id'->>'min', data->'id'->>'max', coalesce(data->'f'->>'nan_count', 'NULL') FROM ev$partitions ORDER BY 1`).rows
	manifests := mustRun(t, s, `SELECT path, length, added_snapshot_id, added_data_files_count, added_rows_count, existing_rows_count, deleted_rows_count, jsonb_array_length(partition_summaries) FROM ev$manifests ORDER BY path`).rows
	refs := mustRun(t, s, `SELECT name, type, snapshot_id FROM ev$refs`).rows
	// They take part in any query: joins, aggregates, WHERE.
	joined := mustRun(t, s, `SELECT count(*) FROM "ev$files" f JOIN "ev$manifests" m ON m.added_snapshot_id = (SELECT max(snapshot_id) FROM ev$snapshots) WHERE f.record_count > 0`).rows
	counts := mustRun(t, s, `SELECT partition->>'day' AS d, sum(record_count) FROM ev$files GROUP BY d ORDER BY d`).rows
	byDay := mustRun(t, s, `SELECT day::text, count(*) FROM ev GROUP BY day ORDER BY day`).rows
	if show(counts) != show(byDay) {
		t.Errorf("$files records by partition\n%s\nwant (the table's rows by day)\n%s", show(counts), show(byDay))
	}
	e.Close()

	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "ev"})
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	md := tbl.Metadata()
	cur := md.CurrentSnapshot()

	// $snapshots: every snapshot of the metadata, with its parent,
	// operation, manifest list and summary.
	var want [][]string
	for _, sn := range md.Snapshots() {
		parent := "NULL"
		if sn.ParentSnapshotID != nil {
			parent = strconv.FormatInt(*sn.ParentSnapshotID, 10)
		}
		want = append(want, []string{strconv.FormatInt(sn.SnapshotID, 10), parent, string(sn.Summary.Operation),
			sn.ManifestList, sn.Summary.Properties["total-records"]})
	}
	if len(want) < 3 {
		t.Errorf("iceberg-go sees %d snapshots; three CHECKPOINTs should give at least 3", len(want))
	}
	if sortedText(snaps) != sortedText(want) {
		t.Errorf("$snapshots\n%s\nwant\n%s", sortedText(snaps), sortedText(want))
	}

	// $history: the snapshot log in order, all ancestors of the current
	// snapshot here, made_current_at never going back.
	want = nil
	for entry := range md.SnapshotLogs() {
		want = append(want, []string{strconv.FormatInt(entry.SnapshotID, 10), "t", "t"})
	}
	if show(history) != show(want) {
		t.Errorf("$history\n%s\nwant\n%s", show(history), show(want))
	}

	// $files: what iceberg-go's scan plans to read.
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatalf("PlanFiles: %v", err)
	}
	want = nil
	type part struct {
		records, files, size int64
		minID, maxID         int64
		nans                 string
	}
	idField, _ := tbl.Schema().FindFieldByName("id")
	fField, _ := tbl.Schema().FindFieldByName("f")
	bound := func(b []byte) int64 {
		lit, err := iceberg.LiteralFromBytes(iceberg.PrimitiveTypes.Int32, b)
		if err != nil {
			t.Fatal(err)
		}
		return int64(lit.Any().(int32))
	}
	wantParts := map[string]*part{}
	for _, task := range tasks {
		f := task.File
		day := dayOf(t, tbl, f.Partition())
		want = append(want, []string{f.FilePath(), strconv.FormatInt(f.Count(), 10), strconv.FormatInt(f.FileSizeBytes(), 10),
			day, "0", string(f.FileFormat())})
		lo, hi := bound(f.LowerBoundValues()[idField.ID]), bound(f.UpperBoundValues()[idField.ID])
		p := wantParts[day]
		if p == nil {
			p = &part{minID: lo, maxID: hi, nans: "NULL"}
			wantParts[day] = p
		}
		p.minID, p.maxID = min(p.minID, lo), max(p.maxID, hi)
		if n, ok := f.NaNValueCounts()[fField.ID]; ok {
			sum, _ := strconv.ParseInt(p.nans, 10, 64)
			p.nans = strconv.FormatInt(sum+n, 10)
		}
		p.records += f.Count()
		p.files++
		p.size += f.FileSizeBytes()
	}
	if sortedText(files) != sortedText(want) {
		t.Errorf("$files\n%s\nwant (iceberg-go PlanFiles)\n%s", sortedText(files), sortedText(want))
	}

	// $partitions: the planned files summed by partition, with id's
	// bounds and f's NaN count over them.
	want = nil
	for day, p := range wantParts {
		want = append(want, []string{day, strconv.FormatInt(p.records, 10), strconv.FormatInt(p.files, 10),
			strconv.FormatInt(p.size, 10), strconv.FormatInt(p.minID, 10), strconv.FormatInt(p.maxID, 10), p.nans})
	}
	if sortedText(parts) != sortedText(want) {
		t.Errorf("$partitions\n%s\nwant\n%s", sortedText(parts), sortedText(want))
	}

	// $manifests: the current snapshot's manifest list.
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := cur.Manifests(fs)
	if err != nil {
		t.Fatalf("Manifests: %v", err)
	}
	want = nil
	for _, m := range mfs {
		want = append(want, []string{m.FilePath(), strconv.FormatInt(m.Length(), 10), strconv.FormatInt(m.SnapshotID(), 10),
			strconv.Itoa(int(m.AddedDataFiles())), strconv.FormatInt(m.AddedRows(), 10), strconv.FormatInt(m.ExistingRows(), 10),
			strconv.FormatInt(m.DeletedRows(), 10), strconv.Itoa(len(m.Partitions()))})
	}
	if sortedText(manifests) != sortedText(want) {
		t.Errorf("$manifests\n%s\nwant\n%s", sortedText(manifests), sortedText(want))
	}

	// $refs: main, a branch at the current snapshot.
	want = nil
	for name, ref := range md.Refs() {
		want = append(want, []string{name, strings.ToUpper(string(ref.SnapshotRefType)), strconv.FormatInt(ref.SnapshotID, 10)})
	}
	if sortedText(refs) != sortedText(want) || !strings.Contains(sortedText(refs), "main BRANCH "+strconv.FormatInt(cur.SnapshotID, 10)) {
		t.Errorf("$refs\n%s\nwant\n%s", sortedText(refs), sortedText(want))
	}

	// The join: every file against the current snapshot's manifests.
	if got, w := show(joined), strconv.Itoa(len(tasks)*countAdded(mfs, cur.SnapshotID))+"\n"; got != w {
		t.Errorf("join gave %s rows, want %s", got, w)
	}
}

// countAdded counts the manifests a snapshot added.
func countAdded(mfs []iceberg.ManifestFile, id int64) int {
	n := 0
	for _, m := range mfs {
		if m.SnapshotID() == id {
			n++
		}
	}
	return n
}

// dayOf is a file's day partition value as text, via the spec's own
// transform printing.
func dayOf(t *testing.T, tbl *table.Table, values map[int]any) string {
	t.Helper()
	spec := tbl.Spec()
	for _, f := range spec.Fields() {
		v, ok := values[f.FieldID]
		if !ok {
			t.Fatalf("partition %v lacks field %d", values, f.FieldID)
		}
		src, _ := tbl.Schema().FindTypeByID(f.SourceID())
		return f.Transform.ToHumanStrType(f.Transform.ResultType(src), v)
	}
	t.Fatal("table is not partitioned")
	return ""
}

// sortRows shows rows sorted, for comparing sets.
func sortedText(rows [][]string) string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, " ")
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
