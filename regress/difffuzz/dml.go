package difffuzz

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// DMLFuzzer changes rows at random on Loam and PostgreSQL side by side:
// INSERT, UPDATE (with FROM), DELETE (with USING), upserts, MERGE and
// TRUNCATE, in and out of transaction blocks that commit or roll back,
// with Loam's link committing the write log into Iceberg (CHECKPOINT) at
// random moments. After each statement it compares the command tags (or
// the SQLSTATE class of the error) and then the whole of each table.
type DMLFuzzer struct {
	r      *rand.Rand
	loam   *Side
	pg     *Side
	logf   func(string, ...any)
	tables []dmlTable
	inTx   bool
	// Steps counts the statements run; Checkpoints Loam's CHECKPOINTs,
	// Vacuums its VACUUMs; Failed the statements both sides refused
	// alike, by SQLSTATE.
	Steps, Checkpoints, Vacuums int
	Failed                      map[string]int
	// Skip leaves statement kinds out: "upsert", "merge", "keyed".
	Skip map[string]bool
}

// dmlTable is one table the fuzzer changes: id and v are integers, k
// text; keyed tables have PRIMARY KEY (id).
type dmlTable struct {
	name  string
	keyed bool
}

// NewDMLFuzzer connects to both sides and creates the tables: unkeyed on
// format versions 2 and 3, keyed (v3 by default), one partitioned.
func NewDMLFuzzer(ctx context.Context, seed int64, loamURL, pgURL string, skipKeyed bool, logf func(string, ...any)) (*DMLFuzzer, error) {
	f := &DMLFuzzer{r: rand.New(rand.NewSource(seed)), logf: logf,
		loam: &Side{Name: "loam", URL: loamURL}, pg: &Side{Name: "postgres", URL: pgURL}}
	if err := f.loam.connect(ctx); err != nil {
		return nil, err
	}
	if err := f.pg.connect(ctx); err != nil {
		f.loam.close()
		return nil, err
	}
	type ddl struct{ name, cols, loamWith string }
	defs := []ddl{
		{"d2", "id int, k text, v int", " WITH (format_version = 2)"},
		{"d3", "id int, k text, v int", " WITH (format_version = 3)"},
		{"dp", "id int, k text, v int", " PARTITIONED BY (bucket(4, id)) SORTED BY (k)"},
		{"dk", "id int PRIMARY KEY, k text, v int", ""},
	}
	for _, d := range defs {
		if skipKeyed && strings.Contains(d.cols, "PRIMARY KEY") {
			continue
		}
		for _, s := range []*Side{f.loam, f.pg} {
			_ = s.Exec(ctx, "DROP TABLE IF EXISTS "+d.name)
			sql := "CREATE TABLE " + d.name + " (" + d.cols + ")"
			if s == f.loam {
				sql += d.loamWith
			}
			if err := s.Exec(ctx, sql); err != nil {
				f.Close()
				return nil, err
			}
		}
		f.tables = append(f.tables, dmlTable{name: d.name, keyed: strings.Contains(d.cols, "PRIMARY KEY")})
	}
	return f, nil
}

// Close ends both sessions.
func (f *DMLFuzzer) Close() {
	f.loam.close()
	f.pg.close()
}

// Step runs one random statement on both sides and compares them; it
// returns a description of the first difference, or "".
func (f *DMLFuzzer) Step(ctx context.Context) (string, error) {
	f.Steps++
	if f.r.Intn(12) == 0 && !f.inTx {
		f.Checkpoints++
		if err := f.loam.Exec(ctx, "CHECKPOINT"); err != nil {
			return "", err
		}
	}
	if f.r.Intn(40) == 0 && !f.inTx {
		// Compaction applies the deletes and rewrites the files the next
		// statements' row ids name (docs/upkeep.md).
		f.Vacuums++
		if err := f.loam.Exec(ctx, "VACUUM"); err != nil {
			return "", err
		}
	}
	sql := f.statement()
	lt, lerr := execTag(ctx, f.loam, sql)
	pt, perr := execTag(ctx, f.pg, sql)
	switch {
	case lerr != nil && perr == nil:
		return fmt.Sprintf("%s\n  Loam failed: %v\n  PostgreSQL: %s", sql, lerr, pt), nil
	case lerr == nil && perr != nil:
		return fmt.Sprintf("%s\n  PostgreSQL failed: %v\n  Loam: %s", sql, perr, lt), nil
	case lerr != nil:
		if class(lerr) != class(perr) {
			return fmt.Sprintf("%s\n  Loam: %v\n  PostgreSQL: %v", sql, lerr, perr), nil
		}
		if f.Failed == nil {
			f.Failed = map[string]int{}
		}
		f.Failed[code(perr)]++
		if f.inTx {
			// Both aborted the block: end it on both.
			_, _ = execTag(ctx, f.loam, "ROLLBACK")
			_, _ = execTag(ctx, f.pg, "ROLLBACK")
			f.inTx = false
		}
	case lt != pt:
		return fmt.Sprintf("%s\n  Loam: %s\n  PostgreSQL: %s", sql, lt, pt), nil
	}
	for _, t := range f.tables {
		if d := f.compareTable(ctx, t.name); d != "" {
			return sql + "\n  then " + d, nil
		}
	}
	return "", nil
}

func class(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && len(pe.Code) >= 2 {
		return pe.Code[:2]
	}
	return err.Error()
}

// code is err's SQLSTATE, or its text.
func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return err.Error()
}

// execTag runs sql and returns its command tag.
func execTag(ctx context.Context, s *Side, sql string) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	tag, err := s.conn.Exec(qctx, sql)
	if err != nil {
		return "", err
	}
	return tag.String(), nil
}

// compareTable compares a table's rows, as multisets.
func (f *DMLFuzzer) compareTable(ctx context.Context, name string) string {
	q := "SELECT id, k, v FROM " + name
	l, p := f.loam.Query(ctx, q), f.pg.Query(ctx, q)
	if l.Lost != nil {
		return "Loam lost the session: " + l.Lost.Error()
	}
	if l.Err != nil || p.Err != nil {
		return fmt.Sprintf("reading %s: Loam %v, PostgreSQL %v", name, l.Err, p.Err)
	}
	ls, ps := rowStrings(l.Rows), rowStrings(p.Rows)
	if slices.Equal(ls, ps) {
		return ""
	}
	return fmt.Sprintf("%s differs: Loam %d rows %v, PostgreSQL %d rows %v", name, len(ls), abbrevRows(ls), len(ps), abbrevRows(ps))
}

func rowStrings(rows [][]*string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, v := range r {
			if v == nil {
				parts[j] = "NULL"
			} else {
				parts[j] = *v
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	slices.Sort(out)
	return out
}

func abbrevRows(rows []string) string {
	if len(rows) > 12 {
		return fmt.Sprint(rows[:12]) + "…"
	}
	return fmt.Sprint(rows)
}

// statement makes the next statement.
func (f *DMLFuzzer) statement() string {
	t := f.tables[f.r.Intn(len(f.tables))]
	o := f.tables[f.r.Intn(len(f.tables))]
	switch n := f.r.Intn(100); {
	case n < 4 && !f.inTx:
		f.inTx = true
		return "BEGIN"
	case n < 8 && f.inTx:
		f.inTx = false
		if f.r.Intn(2) == 0 {
			return "ROLLBACK"
		}
		return "COMMIT"
	case n < 30:
		return f.insert(t)
	case n < 50:
		return fmt.Sprintf("UPDATE %s SET %s WHERE %s", t.name, f.assignments(t), f.pred(""))
	case n < 56:
		// One source row per id: with more, PostgreSQL picks one of them.
		return fmt.Sprintf("UPDATE %s SET v = %s.v + o.v FROM (SELECT DISTINCT ON (id) id, k, v FROM %s ORDER BY id, v, k) o WHERE %s.id = o.id AND %s", t.name, t.name, o.name, t.name, f.pred("o."))
	case n < 70:
		return fmt.Sprintf("DELETE FROM %s WHERE %s", t.name, f.pred(""))
	case n < 74:
		return fmt.Sprintf("DELETE FROM %s USING %s o WHERE %s.id = o.id AND %s", t.name, o.name, t.name, f.pred("o."))
	case n < 86 && t.keyed && !f.Skip["upsert"]:
		return f.upsert(t)
	case n < 94 && !f.Skip["merge"]:
		return f.merge(t, o)
	case n < 95 && !f.Skip["truncate"]:
		return "TRUNCATE " + t.name
	default:
		return fmt.Sprintf("UPDATE %s SET k = NULL WHERE %s RETURNING id, k, v", t.name, f.pred(""))
	}
}

func (f *DMLFuzzer) val() string {
	if f.r.Intn(8) == 0 {
		return "NULL"
	}
	return fmt.Sprint(f.r.Intn(40) - 5)
}

func (f *DMLFuzzer) text() string {
	if f.r.Intn(8) == 0 {
		return "NULL"
	}
	return "'" + string(rune('a'+f.r.Intn(6))) + "'"
}

// keyVal is an id for a keyed table: never NULL, from a small range so
// that keys collide.
func (f *DMLFuzzer) keyVal() string { return fmt.Sprint(f.r.Intn(30)) }

func (f *DMLFuzzer) insert(t dmlTable) string {
	n := 1 + f.r.Intn(4)
	var rows []string
	used := map[string]bool{}
	for range n {
		id := f.val()
		if t.keyed {
			id = f.keyVal()
			if used[id] {
				continue
			}
			used[id] = true
		}
		rows = append(rows, "("+id+", "+f.text()+", "+f.val()+")")
	}
	sql := "INSERT INTO " + t.name + " VALUES " + strings.Join(rows, ", ")
	if t.keyed {
		sql += " ON CONFLICT DO NOTHING"
	}
	return sql
}

func (f *DMLFuzzer) upsert(t dmlTable) string {
	row := "(" + f.keyVal() + ", " + f.text() + ", " + f.val() + ")"
	switch f.r.Intn(3) {
	case 0:
		return "INSERT INTO " + t.name + " VALUES " + row + " ON CONFLICT (id) DO NOTHING"
	case 1:
		return "INSERT INTO " + t.name + " VALUES " + row + " ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v, k = EXCLUDED.k"
	}
	return "INSERT INTO " + t.name + " AS t VALUES " + row + " ON CONFLICT (id) DO UPDATE SET v = coalesce(t.v, 0) + coalesce(EXCLUDED.v, 0) WHERE t.k IS DISTINCT FROM EXCLUDED.k"
}

func (f *DMLFuzzer) assignments(t dmlTable) string {
	var parts []string
	if f.r.Intn(2) == 0 {
		parts = append(parts, "v = "+[]string{"v + 1", "NULL", f.val(), "v * 2", "id"}[f.r.Intn(5)])
	}
	if f.r.Intn(2) == 0 || len(parts) == 0 {
		parts = append(parts, "k = "+[]string{f.text(), "upper(k)", "k || 'x'"}[f.r.Intn(3)])
	}
	if !t.keyed && f.r.Intn(5) == 0 {
		parts = append(parts, "id = id + 100")
	}
	return strings.Join(parts, ", ")
}

// pred is a predicate over a table's columns, prefixed by p.
func (f *DMLFuzzer) pred(p string) string {
	atom := func() string {
		switch f.r.Intn(7) {
		case 0:
			return fmt.Sprintf("%sid %% %d = %d", p, 2+f.r.Intn(4), f.r.Intn(2))
		case 1:
			return fmt.Sprintf("%sv < %d", p, f.r.Intn(40)-5)
		case 2:
			return fmt.Sprintf("%sk = %s", p, f.text())
		case 3:
			return p + "k IS NULL"
		case 4:
			return fmt.Sprintf("%sid BETWEEN %d AND %d", p, f.r.Intn(20), 10+f.r.Intn(30))
		case 5:
			return "true"
		}
		return p + "v IS NOT NULL"
	}
	switch f.r.Intn(4) {
	case 0:
		return atom() + " AND " + atom()
	case 1:
		return atom() + " OR " + atom()
	}
	return atom()
}

// merge is a MERGE of o's rows (or a VALUES list) into t: WHEN MATCHED
// clauses with and without conditions on both sides, updating, deleting
// or doing nothing, and WHEN NOT MATCHED ones inserting or doing
// nothing. An unkeyed target may be merged from a source with repeated
// ids: a target row two source rows update or delete is then 21000 on
// both sides (which row meets which clause does not depend on the order
// rows are taken in, so neither does the error).
func (f *DMLFuzzer) merge(t, o dmlTable) string {
	var whens []string
	for i := f.r.Intn(3); i > 0; i-- {
		whens = append(whens, "WHEN MATCHED AND "+f.mergePred()+" THEN "+f.matchedAction())
	}
	if f.r.Intn(3) > 0 {
		whens = append(whens, "WHEN MATCHED THEN "+f.matchedAction())
	}
	for i := f.r.Intn(2); i > 0; i-- {
		whens = append(whens, "WHEN NOT MATCHED AND "+f.pred("s.")+" THEN "+f.notMatchedAction(t))
	}
	if f.r.Intn(3) > 0 || len(whens) == 0 {
		whens = append(whens, "WHEN NOT MATCHED THEN "+f.notMatchedAction(t))
	}
	// A keyed target takes a source with one row per id, so that it stays
	// keyed.
	src := fmt.Sprintf("(SELECT DISTINCT ON (id) id, k, v FROM %s WHERE id IS NOT NULL AND %s ORDER BY id, k, v)", o.name, f.pred(""))
	if !t.keyed {
		switch f.r.Intn(3) {
		case 0:
			src = fmt.Sprintf("(SELECT id, k, v FROM %s WHERE %s)", o.name, f.pred(""))
		case 1:
			var rows []string
			for i := 1 + f.r.Intn(4); i > 0; i-- {
				rows = append(rows, "("+f.val()+"::int, "+f.text()+"::text, "+f.val()+"::int)")
			}
			src = "(VALUES " + strings.Join(rows, ", ") + ")"
		}
	}
	return fmt.Sprintf("MERGE INTO %s t USING %s AS s(id, k, v) ON t.id = s.id %s", t.name, src, strings.Join(whens, " "))
}

// mergePred is a WHEN MATCHED condition: on the target, the source or
// both.
func (f *DMLFuzzer) mergePred() string {
	switch f.r.Intn(3) {
	case 0:
		return f.pred("t.")
	case 1:
		return f.pred("s.")
	}
	return "t.v " + []string{"<", ">=", "IS DISTINCT FROM"}[f.r.Intn(3)] + " s.v"
}

func (f *DMLFuzzer) matchedAction() string {
	return []string{"DELETE", "DO NOTHING", "UPDATE SET v = s.v, k = s.k",
		"UPDATE SET v = coalesce(t.v, 0) + coalesce(s.v, 0)", "UPDATE SET k = t.k || s.k, v = DEFAULT"}[f.r.Intn(5)]
}

func (f *DMLFuzzer) notMatchedAction(t dmlTable) string {
	acts := []string{"INSERT VALUES (s.id, s.k, s.v)", "INSERT (v, id) VALUES (s.v + 1, s.id)", "DO NOTHING"}
	if !t.keyed {
		acts = append(acts, "INSERT DEFAULT VALUES", "INSERT VALUES (s.v, 'm')")
	}
	return acts[f.r.Intn(len(acts))]
}
