package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/puffin"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/sketch"
)

// ndvs reads the table's statistics as another engine would: the
// statistics file of the current snapshot from the table metadata, its
// Puffin blobs, each a DataSketches compact theta sketch.
func ndvs(t *testing.T, e *engine.Engine, name string) (map[string]float64, string) {
	t.Helper()
	tbl, err := e.Store().Load(context.Background(), "public", name)
	if err != nil {
		t.Fatal(err)
	}
	var sf *table.StatisticsFile
	for s := range tbl.Metadata().Statistics() {
		if s.SnapshotID == tbl.CurrentSnapshot().SnapshotID {
			s := s
			sf = &s
		}
	}
	if sf == nil {
		return nil, ""
	}
	// Through the table's file IO: the warehouse may be a bucket.
	fsys, err := tbl.FS(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open(sf.StatisticsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := puffin.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, b := range r.Blobs() {
		raw, err := r.ReadBlobByMetadata(b)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sketch.UnmarshalTheta(raw, sketch.DefaultK)
		if err != nil {
			t.Fatal(err)
		}
		field, _ := tbl.Schema().FindFieldByID(int(b.Fields[0]))
		out[field.Name] = s.Estimate()
		if prop, _ := strconv.ParseFloat(b.Properties["ndv"], 64); prop != float64(int64(s.Estimate()+0.5)) {
			t.Errorf("%s: ndv property %s, sketch estimates %g", field.Name, b.Properties["ndv"], s.Estimate())
		}
	}
	return out, sf.StatisticsPath
}

func near(got, want float64) bool { return got >= want*0.95 && got <= want*1.05 }

func TestStatisticsFollowTheLinkAndAnalyze(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE st (id bigint, grp text, d date)")
	mustRun(t, s, "INSERT INTO st SELECT g, 'g' || (g % 10), DATE '2024-01-01' + (g % 100)::int FROM generate_series(1, 20000) g")
	mustRun(t, s, "CHECKPOINT")
	got, _ := ndvs(t, e, "st")
	if !near(got["id"], 20000) || got["grp"] != 10 || got["d"] != 100 {
		t.Fatalf("after the first link: ndv %v, want id≈20000 grp=10 d=100", got)
	}
	// The link adds the new rows' values to the sketches it has.
	mustRun(t, s, "INSERT INTO st SELECT g, 'h' || (g % 5), DATE '2024-01-01' FROM generate_series(20001, 50000) g")
	mustRun(t, s, "CHECKPOINT")
	got, before := ndvs(t, e, "st")
	if !near(got["id"], 50000) || got["grp"] != 15 || got["d"] != 100 {
		t.Fatalf("after the second link: ndv %v, want id≈50000 grp=15 d=100", got)
	}
	// ANALYZE recomputes them from all rows: deleted ones are gone.
	mustRun(t, s, "DELETE FROM st WHERE id > 20000")
	mustRun(t, s, "ANALYZE st")
	got, after := ndvs(t, e, "st")
	if after == before || !near(got["id"], 20000) || got["grp"] != 10 {
		t.Fatalf("after ANALYZE: ndv %v (file %s, before %s), want id≈20000 grp=10 in a new file", got, after, before)
	}
}

func TestJoinOrderUsesStatistics(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	// FROM lists the big table last: without estimates, it would be
	// hashed.
	mustRun(t, s, "CREATE TABLE dim (k int, name text)")
	mustRun(t, s, "CREATE TABLE mid (k int, f int)")
	mustRun(t, s, "CREATE TABLE fact (f int, v int)")
	mustRun(t, s, "INSERT INTO dim SELECT g, 'n' || g FROM generate_series(1, 10) g")
	mustRun(t, s, "INSERT INTO mid SELECT g % 10, g FROM generate_series(1, 1000) g")
	mustRun(t, s, "INSERT INTO fact SELECT g % 1000, g FROM generate_series(1, 100000) g")
	mustRun(t, s, "CHECKPOINT")
	res := mustRun(t, s, "EXPLAIN SELECT count(*) FROM dim, mid, fact WHERE dim.k = mid.k AND mid.f = fact.f")
	var plan []string
	for _, r := range res.rows {
		plan = append(plan, r[0])
	}
	text := strings.Join(plan, "\n")
	// The hashed input of a Hash Join is its second child: fact's scan
	// must be the first (probe) input of the join it takes part in.
	for i, line := range plan {
		if strings.Contains(line, "Iceberg Scan on public.fact") {
			for j := i - 1; j >= 0; j-- {
				if strings.Contains(plan[j], "Hash Join") {
					if hashedChild(plan, j, i) {
						t.Fatalf("fact (100000 rows) is hashed:\n%s", text)
					}
					return
				}
			}
		}
	}
	t.Fatalf("no hash join over fact:\n%s", text)
}

// hashedChild reports whether the line at scan is in the second child of
// the join at line j (children are the lines indented one step below
// it, each starting with "->").
func hashedChild(plan []string, j, scan int) bool {
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	child := -1
	children := 0
	for k := j + 1; k < len(plan); k++ {
		if strings.TrimSpace(plan[k]) == "" || indent(plan[k]) <= indent(plan[j]) && strings.Contains(plan[k], "->") && k != j+1 && indent(plan[k]) < indent(plan[j])+2 {
			break
		}
		if strings.HasPrefix(strings.TrimSpace(plan[k]), "->") && (child < 0 || indent(plan[k]) == child) {
			child = indent(plan[k])
			children++
		}
		if k == scan {
			return children == 2
		}
	}
	return false
}

// TPC-H q19's shape: the join equality sits in every branch of an OR.
// Taken out, it keys a hash join, and each table's part of the branches
// filters its scan; left in, the join is a cross product.
func TestOrBranchesShareTheJoinKey(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE li (partkey int, qty int)")
	mustRun(t, s, "CREATE TABLE pt (partkey int, brand text)")
	res := mustRun(t, s, `EXPLAIN SELECT count(*) FROM li, pt
		WHERE (pt.partkey = li.partkey AND pt.brand = 'B1' AND li.qty < 10)
		   OR (li.partkey = pt.partkey AND pt.brand = 'B2' AND li.qty > 20)`)
	var text strings.Builder
	for _, r := range res.rows {
		text.WriteString(r[0] + "\n")
	}
	plan := text.String()
	if !strings.Contains(plan, "Hash Cond") || strings.Contains(plan, "Nested Loop") {
		t.Fatalf("want a hash join on partkey:\n%s", plan)
	}
	// Each scan is filtered by its part of the branches.
	if strings.Count(plan, "Filter:") < 3 {
		t.Fatalf("want the scans filtered by the branches' parts, and the OR after the join:\n%s", plan)
	}
}
