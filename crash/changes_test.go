package crash

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/jackc/pgx/v5"
)

// createChanges is the table the change writers keep: each row's writer
// owns it, and v counts the UPDATEs applied to it, so an UPDATE applied
// twice shows as v one too high, and an UPDATE's or INSERT's rows applied
// twice as an id read twice.
const createChanges = `CREATE TABLE t (id BIGINT NOT NULL, writer INT, v BIGINT, ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`

// changeModel is what the table must hold: each writer's rows (id → v)
// as its acknowledged statements left them, and the effect of the one
// statement (or transaction block) each writer had in flight when the
// server was killed, which may have been applied or not, but wholly.
type changeModel struct {
	mu      sync.Mutex
	next    int64
	state   map[int]map[int64]int64 // writer → id → v
	pending map[int]*change         // writer → its unacknowledged change
	counts  map[string]int          // acknowledged statements by kind
	keyed   bool                    // the table has PRIMARY KEY (id): writers upsert too
}

// A change is a statement's (or a block's) effect on its writer's rows:
// each id's new v, or absent (deleted).
type change struct {
	kind string
	sets map[int64]int64
	dels map[int64]bool
}

func newChangeModel() *changeModel {
	return &changeModel{next: 1, state: map[int]map[int64]int64{}, pending: map[int]*change{}, counts: map[string]int{}}
}

func (m *changeModel) alloc(n int) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	lo := m.next
	m.next += int64(n)
	return lo
}

// rows is a copy of writer w's acknowledged rows.
func (m *changeModel) rowsOf(w int) map[int64]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.state[w])
}

func (c *change) apply(rows map[int64]int64) map[int64]int64 {
	out := maps.Clone(rows)
	if out == nil {
		out = map[int64]int64{}
	}
	for id := range c.dels {
		delete(out, id)
	}
	for id, v := range c.sets {
		out[id] = v
	}
	return out
}

// done records the outcome of writer w's change: acknowledged, it is
// applied; otherwise it is pending until a check finds whether it was.
func (m *changeModel) done(w int, c *change, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil {
		m.state[w] = c.apply(m.state[w])
		m.counts[c.kind]++
		return
	}
	m.pending[w] = c
}

// check compares the rows read (writer → id → v; ids read twice are
// reported by the reader) with the model. A writer's pending change is
// settled by the first check: the rows must equal the state before it or
// after it, and from then on the one they equalled.
func (m *changeModel) check(where string, got map[int]map[int64]int64) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var problems []string
	writers := map[int]bool{}
	for w := range m.state {
		writers[w] = true
	}
	for w := range got {
		writers[w] = true
	}
	for w := range m.pending {
		writers[w] = true
	}
	for _, w := range slices.Sorted(maps.Keys(writers)) {
		before := m.state[w]
		have := got[w]
		if c := m.pending[w]; c != nil {
			after := c.apply(before)
			switch {
			case sameRows(before, after) && sameRows(have, before):
				m.counts[c.kind+" (unacknowledged, no change)"]++
			case sameRows(have, after):
				m.state[w] = after
				m.counts[c.kind+" (unacknowledged, applied)"]++
			case sameRows(have, before):
				m.counts[c.kind+" (unacknowledged, not applied)"]++
			default:
				problems = append(problems, fmt.Sprintf("%s: writer %d's rows are neither the state before its unacknowledged %s nor after it: %s; vs after: %s",
					where, w, c.kind, diffRows(have, before), diffRows(have, after)))
			}
			delete(m.pending, w)
			continue
		}
		if !sameRows(have, before) {
			problems = append(problems, fmt.Sprintf("%s: writer %d: %s", where, w, diffRows(have, before)))
		}
	}
	return problems
}

func sameRows(a, b map[int64]int64) bool {
	return len(a) == len(b) && (len(a) == 0 || maps.Equal(a, b))
}

// diffRows describes how got differs from want, a few rows of each kind.
func diffRows(got, want map[int64]int64) string {
	var lost, extra, wrong []string
	for _, id := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[id]
		switch {
		case !ok:
			lost = append(lost, fmt.Sprint(id))
		case g != want[id]:
			wrong = append(wrong, fmt.Sprintf("%d: v=%d, want %d", id, g, want[id]))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[id]; !ok {
			extra = append(extra, fmt.Sprint(id))
		}
	}
	few := func(s []string) string {
		if len(s) > 8 {
			return strings.Join(s[:8], ", ") + fmt.Sprintf(" … (%d)", len(s))
		}
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%d rows, want %d; LOST [%s]; EXTRA (deleted or never written) [%s]; WRONG v (an UPDATE lost or applied twice) [%s]",
		len(got), len(want), few(lost), few(extra), few(wrong))
}

// changeWriter sends changes to its own rows until ctx ends or one fails:
// INSERTs of new rows, UPDATEs (v = v + 1) and DELETEs by id list and by
// predicate, and transaction blocks of several, some rolled back.
func changeWriter(ctx context.Context, url string, w int, rng *rand.Rand, m *changeModel) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := pgx.Connect(cctx, url)
	cancel()
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.Close(cctx)
		cancel()
	}()
	for ctx.Err() == nil {
		rows := m.rowsOf(w)
		var ch *change
		var err error
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		switch k := rng.Intn(10); {
		case k < 3 && m.keyed && len(rows) >= 20:
			ch, err = upsertRows(sctx, c, w, rng, m, rows, nil)
		case k < 3 || len(rows) < 20:
			ch, err = insertRows(sctx, c, w, rng, m, rows, nil)
		case k < 5:
			ch, err = updateRows(sctx, c, w, rng, rows, nil)
		case k < 7:
			ch, err = deleteRows(sctx, c, w, rng, rows, nil)
		default:
			ch, err = changeBlock(sctx, c, w, rng, m, rows, k == 9)
		}
		cancel()
		m.done(w, ch, err)
		if err != nil {
			return err
		}
	}
	return nil
}

// pick chooses up to n of rows' ids.
func pick(rng *rand.Rand, rows map[int64]int64, n int) []int64 {
	ids := slices.Sorted(maps.Keys(rows))
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids[:min(n, len(ids))]
}

func idList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// into is the change a block accumulates (nil: a statement of its own).
func begin(kind string, into *change) *change {
	if into != nil {
		return into
	}
	return &change{kind: kind, sets: map[int64]int64{}, dels: map[int64]bool{}}
}

// cur is rows as ch has changed them.
func cur(rows map[int64]int64, ch *change) map[int64]int64 { return ch.apply(rows) }

func expectTag(tag string, want string) error {
	if tag != want {
		return fmt.Errorf("command tag %q, want %q", tag, want)
	}
	return nil
}

func insertRows(ctx context.Context, c *pgx.Conn, w int, rng *rand.Rand, m *changeModel, rows map[int64]int64, into *change) (*change, error) {
	ch := begin("INSERT", into)
	n := 1 + rng.Intn(40)
	lo := m.alloc(n)
	var b strings.Builder
	b.WriteString("INSERT INTO t (id, writer, v, ts) VALUES ")
	for id := lo; id < lo+int64(n); id++ {
		if id > lo {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, 0, '%s')", id, w, tsOf(id).Format("2006-01-02 15:04:05Z07:00"))
		ch.sets[id] = 0
		delete(ch.dels, id)
	}
	tag, err := c.Exec(ctx, b.String())
	if err != nil {
		return ch, err
	}
	return ch, expectTag(tag.String(), fmt.Sprintf("INSERT 0 %d", n))
}

// upsertRows upserts some of the writer's rows (v + 1) and some new ones
// (v = 0) in one INSERT … ON CONFLICT DO UPDATE.
func upsertRows(ctx context.Context, c *pgx.Conn, w int, rng *rand.Rand, m *changeModel, rows map[int64]int64, into *change) (*change, error) {
	ch := begin("UPSERT", into)
	now := cur(rows, ch)
	ids := pick(rng, now, 1+rng.Intn(6))
	n := rng.Intn(4)
	lo := m.alloc(n)
	for id := lo; id < lo+int64(n); id++ {
		ids = append(ids, id)
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	var b strings.Builder
	b.WriteString("INSERT INTO t (id, writer, v, ts) VALUES ")
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %d, 0, '%s')", id, w, tsOf(id).Format("2006-01-02 15:04:05Z07:00"))
		if v, ok := now[id]; ok {
			ch.sets[id] = v + 1
		} else {
			ch.sets[id] = 0
		}
		delete(ch.dels, id)
	}
	b.WriteString(" ON CONFLICT (id) DO UPDATE SET v = t.v + 1")
	tag, err := c.Exec(ctx, b.String())
	if err != nil {
		return ch, err
	}
	return ch, expectTag(tag.String(), fmt.Sprintf("INSERT 0 %d", len(ids)))
}

func updateRows(ctx context.Context, c *pgx.Conn, w int, rng *rand.Rand, rows map[int64]int64, into *change) (*change, error) {
	ch := begin("UPDATE", into)
	now := cur(rows, ch)
	var q string
	var hit []int64
	if rng.Intn(2) == 0 {
		hit = pick(rng, now, 1+rng.Intn(10))
		if len(hit) == 0 {
			return ch, nil
		}
		q = fmt.Sprintf("UPDATE t SET v = v + 1 WHERE writer = %d AND id IN (%s)", w, idList(hit))
	} else {
		// A predicate over many rows, in the files and the tail.
		mod, r := int64(2+rng.Intn(4)), int64(rng.Intn(2))
		for id := range now {
			if id%mod == r {
				hit = append(hit, id)
			}
		}
		q = fmt.Sprintf("UPDATE t SET v = v + 1 WHERE writer = %d AND id %% %d = %d", w, mod, r)
	}
	for _, id := range hit {
		ch.sets[id] = now[id] + 1
	}
	tag, err := c.Exec(ctx, q)
	if err != nil {
		return ch, err
	}
	return ch, expectTag(tag.String(), fmt.Sprintf("UPDATE %d", len(hit)))
}

func deleteRows(ctx context.Context, c *pgx.Conn, w int, rng *rand.Rand, rows map[int64]int64, into *change) (*change, error) {
	ch := begin("DELETE", into)
	now := cur(rows, ch)
	var q string
	var hit []int64
	if rng.Intn(3) > 0 {
		hit = pick(rng, now, 1+rng.Intn(8))
		if len(hit) == 0 {
			return ch, nil
		}
		q = fmt.Sprintf("DELETE FROM t WHERE writer = %d AND id IN (%s)", w, idList(hit))
	} else {
		mod := int64(5 + rng.Intn(5))
		for id := range now {
			if id%mod == 0 {
				hit = append(hit, id)
			}
		}
		q = fmt.Sprintf("DELETE FROM t WHERE writer = %d AND id %% %d = 0", w, mod)
	}
	for _, id := range hit {
		delete(ch.sets, id)
		ch.dels[id] = true
	}
	tag, err := c.Exec(ctx, q)
	if err != nil {
		return ch, err
	}
	return ch, expectTag(tag.String(), fmt.Sprintf("DELETE %d", len(hit)))
}

// changeBlock runs BEGIN, two to four changes, and COMMIT, or ROLLBACK
// (whose change is none, killed or not).
func changeBlock(ctx context.Context, c *pgx.Conn, w int, rng *rand.Rand, m *changeModel, rows map[int64]int64, rollback bool) (*change, error) {
	ch := begin("block", nil)
	if rollback {
		ch.kind = "rolled back block"
	}
	none := begin(ch.kind, nil)
	result := func(err error) (*change, error) {
		if rollback {
			return none, err
		}
		return ch, err
	}
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		return result(err)
	}
	for range 2 + rng.Intn(3) {
		var err error
		switch rng.Intn(3) {
		case 0:
			if m.keyed && rng.Intn(2) == 0 {
				_, err = upsertRows(ctx, c, w, rng, m, rows, ch)
				break
			}
			_, err = insertRows(ctx, c, w, rng, m, rows, ch)
		case 1:
			_, err = updateRows(ctx, c, w, rng, rows, ch)
		default:
			_, err = deleteRows(ctx, c, w, rng, rows, ch)
		}
		if err != nil {
			return result(err)
		}
	}
	end := "COMMIT"
	if rollback {
		end = "ROLLBACK"
	}
	tag, err := c.Exec(ctx, end)
	if err != nil {
		return result(err)
	}
	return result(expectTag(tag.String(), end))
}

// selectChanges reads every row of t through Loam, by writer.
func selectChanges(t *testing.T, ctx context.Context, c *pgx.Conn) (map[int]map[int64]int64, []string) {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rows, err := c.Query(cctx, "SELECT id, writer, v FROM t")
	if err != nil {
		t.Fatalf("SELECT FROM t: %v", err)
	}
	out := map[int]map[int64]int64{}
	var dups []string
	for rows.Next() {
		var id, v int64
		var w int32
		if err := rows.Scan(&id, &w, &v); err != nil {
			rows.Close()
			t.Fatalf("SELECT FROM t: scan: %v", err)
		}
		dups = addRow(out, dups, int(w), id, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("SELECT FROM t: %v", err)
	}
	return out, dups
}

func addRow(out map[int]map[int64]int64, dups []string, w int, id, v int64) []string {
	if out[w] == nil {
		out[w] = map[int64]int64{}
	}
	if old, ok := out[w][id]; ok {
		dups = append(dups, fmt.Sprintf("DUPLICATE: id %d of writer %d read twice (v=%d and v=%d)", id, w, old, v))
	}
	out[w][id] = v
	return dups
}

// icebergChanges reads every row of public.t with iceberg-go's SQL
// catalog and scan alone, and lists the files its current snapshot uses,
// delete files and deletion vectors included.
func icebergChanges(t *testing.T, ctx context.Context, dataDir string, version int) (map[int]map[int64]int64, []string, map[string]bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := warehouseOf(t, dataDir)
	cat := w.catalog(t, db, sqlcat.SQLite)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "t"})
	if err != nil {
		t.Fatalf("iceberg-go LoadTable: %v", err)
	}
	if v := tbl.Metadata().Version(); v != version {
		t.Errorf("the table has format version %d, want %d", v, version)
	}
	out := map[int]map[int64]int64{}
	files := map[string]bool{}
	if tbl.CurrentSnapshot() == nil {
		return out, nil, files
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatalf("iceberg-go PlanFiles: %v", err)
	}
	for _, task := range tasks {
		files[w.path(task.File.FilePath())] = true
		for _, d := range slices.Concat(task.DeleteFiles, task.EqualityDeleteFiles, task.DeletionVectorFiles) {
			files[w.path(d.FilePath())] = true
		}
	}
	_, it, err := tbl.Scan(table.WithSelectedFields("id", "writer", "v")).ToArrowRecords(ctx)
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	var dups []string
	for rec, err := range it {
		if err != nil {
			t.Fatalf("iceberg-go scan: %v", err)
		}
		col := func(name string) int { return rec.Schema().FieldIndices(name)[0] }
		ids := rec.Column(col("id")).(*array.Int64)
		ws := rec.Column(col("writer")).(*array.Int32)
		vs := rec.Column(col("v")).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			dups = addRow(out, dups, int(ws.Value(i)), ids.Value(i), vs.Value(i))
		}
		rec.Release()
	}
	return out, dups, files
}

func (m *changeModel) stats() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m.counts)) {
		fmt.Fprintf(&b, "%s: %d; ", k, m.counts[k])
	}
	n := 0
	for _, rows := range m.state {
		n += len(rows)
	}
	fmt.Fprintf(&b, "%d rows", n)
	return b.String()
}

// TestKillDuringChanges is TestKillDuringIngest for row-level changes:
// three clients INSERT, UPDATE and DELETE their own rows, alone and in
// transaction blocks (some rolled back), while the link commits every
// 200 ms, and the server is SIGKILLed at a random moment. After each
// restart every acknowledged change must be there exactly once (an UPDATE
// applied twice shows in v, a row written twice as a duplicate id) and
// each client's change in flight at the kill wholly or not at all; at the
// end the same through iceberg-go reading the warehouse alone after
// CHECKPOINT, whose position deletes (v2) or deletion vectors (v3) it
// applies itself.
func TestKillDuringChanges(t *testing.T) {
	killDuringChanges(t, createChanges, 2, false)
}

// TestKillDuringUpserts is TestKillDuringChanges on a keyed table (format
// version 3, as keyed tables are by default), whose writers also upsert:
// INSERT … ON CONFLICT (id) DO UPDATE SET v = t.v + 1 of some of their
// rows and some new ones. The key index is rebuilt at each start; an
// upsert that found no row where one was (or the reverse) shows in v or
// as a duplicate id.
func TestKillDuringUpserts(t *testing.T) {
	killDuringChanges(t, createKeyed, 3, false)
}

const createKeyed = `CREATE TABLE t (id BIGINT PRIMARY KEY, writer INT, v BIGINT, ts TIMESTAMPTZ) PARTITIONED BY (day(ts))`

// TestKillDuringChangesV3 is TestKillDuringChanges on a format version 3
// table, whose deletes are deletion vectors, merged with a file's existing
// one on each later delete of it.
func TestKillDuringChangesV3(t *testing.T) {
	killDuringChanges(t, createChanges+` WITH (format_version = 3)`, 3, false)
}

// TestKillDuringChangesAndUpkeep is TestKillDuringChanges with table
// upkeep beside the writers, as TestKillDuringUpkeep has it: background
// compaction every 300 ms and a client running VACUUM t in a loop, which
// rewrite files with their deletes applied while the writers delete more
// of their rows.
func TestKillDuringChangesAndUpkeep(t *testing.T) {
	killDuringChanges(t, createChanges, 2, true)
}

func killDuringChanges(t *testing.T, create string, version int, upkeep bool) {
	if testing.Short() {
		t.Skip("kills and restarts a server many times")
	}
	ctx := context.Background()
	var args []string
	if upkeep {
		args = []string{"--compact-interval", "300ms"}
	}
	vacuums := 0
	seed := seedFromEnv(t)
	rng := rand.New(rand.NewSource(seed))
	rounds := envInt("LOAM_CRASH_ROUNDS", 10)
	const writers = 3
	dataDir, logDir := t.TempDir(), t.TempDir()
	model := newChangeModel()
	model.keyed = strings.Contains(create, "PRIMARY KEY")
	start := time.Now()
	check := func(where string, got map[int]map[int64]int64, dups []string) {
		t.Helper()
		for _, p := range append(dups, model.check(where, got)...) {
			t.Error(p)
		}
	}

	for round := 0; round < rounds; round++ {
		srv := startServer(t, dataDir, logDir, 200*time.Millisecond, args...)
		c := connect(t, ctx, srv)
		if round == 0 {
			if _, err := c.Exec(ctx, create); err != nil {
				if version > 2 {
					t.Skipf("this server does not create format version %d tables: %v", version, err)
				}
				t.Fatalf("%s: %v", create, err)
			}
			if upkeep {
				mustExec(t, ctx, c, `ALTER TABLE t SET (snapshot_retention = '1 second')`)
			}
		} else {
			got, dups := selectChanges(t, ctx, c)
			check(fmt.Sprintf("Loam after restart %d", round), got, dups)
			if t.Failed() {
				t.Fatalf("seed %d round %d; server log:\n%s", seed, round, srv.logTail())
			}
		}
		c.Close(ctx)

		delay := time.Duration(300+rng.Intn(2000)) * time.Millisecond
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		var wg sync.WaitGroup
		var killed atomic.Bool
		errs := make([]error, writers+1)
		for w := 0; w < writers; w++ {
			wrng := rand.New(rand.NewSource(seed + int64(round)*1000 + int64(w)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := changeWriter(wctx, srv.url(), w, wrng, model)
				if err != nil && !killed.Load() {
					errs[w] = err
				}
			}()
		}
		if upkeep {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := vacuumer(wctx, srv.url())
				vacuums += n
				if err != nil && !killed.Load() {
					errs[writers] = fmt.Errorf("VACUUM: %w", err)
				}
			}()
		}
		time.Sleep(delay)
		killAndDrain(t, srv, &killed, &wg, round, "writers")
		cancel()
		for w, err := range errs {
			if err != nil {
				t.Errorf("seed %d round %d writer %d: statement failed before the kill: %v", seed, round, w, err)
			}
		}
		t.Logf("round %d: killed after %v", round, delay)
		if t.Failed() {
			t.Fatalf("seed %d round %d; server log:\n%s", seed, round, srv.logTail())
		}
		if time.Since(start) > 75*time.Second {
			t.Logf("stopping after %d rounds to stay in the time budget", round+1)
			break
		}
	}

	srv := startServer(t, dataDir, logDir, 200*time.Millisecond, args...)
	c := connect(t, ctx, srv)
	got, dups := selectChanges(t, ctx, c)
	check("Loam after the final restart", got, dups)
	mustExec(t, ctx, c, "CHECKPOINT")
	got, dups = selectChanges(t, ctx, c)
	check("Loam after CHECKPOINT", got, dups)
	if upkeep {
		mustExec(t, ctx, c, "VACUUM t")
		got, dups = selectChanges(t, ctx, c)
		check("Loam after VACUUM", got, dups)
	}
	c.Close(ctx)
	srv.stop()
	if t.Failed() {
		t.Logf("server log of the final run:\n%s", srv.logTail())
	}
	got, dups, files := icebergChanges(t, ctx, dataDir, version)
	check("iceberg-go after CHECKPOINT", got, dups)
	if m := missingFiles(t, dataDir, files); len(m) > 0 {
		t.Errorf("the current snapshot references %d files that do not exist: %v", len(m), m)
	}
	t.Log(model.stats())
	if upkeep {
		t.Logf("%d VACUUMs completed", vacuums)
		if vacuums == 0 {
			t.Error("no VACUUM completed before a kill: the test did not exercise compaction")
		}
	}
	if t.Failed() {
		t.Logf("seed %d; rerun with LOAM_CRASH_SEED=%d LOAM_CRASH_ROUNDS=%d", seed, seed, rounds)
	}
}
