// Package difffuzz is a differential fuzzer: it makes random tables, rows
// and queries, runs each query on Loam and on PostgreSQL 15 over the same
// rows, and reports where the answers differ. Rows are tried in the write
// log, in Iceberg files after CHECKPOINT, and split across both. A
// difference is reduced (query clauses, expressions, rows, columns cut
// while it still fails the same way) and printed as a sqllogictest record
// whose expected results are PostgreSQL's, ready for regress/slt/testdata.
//
// Files: schema.go makes tables and rows; ast.go, gen.go and expr.go
// build queries; runner.go talks to a server; compare.go judges results;
// clone.go and reduce.go shrink a failure; record.go prints it.
//
//	go test ./regress/difffuzz/                 fixed seed, 3000 queries (make test)
//	make fuzz-diff SEED=7 N=200000              as long as wanted
//	DIFFFUZZ_SEED=7 DIFFFUZZ_N=200000 DIFFFUZZ_GATES=open go test -timeout 0 -v ./regress/difffuzz/
//
// Shapes that hit known differences are kept out by Gates; KNOWN.md lists
// them with their records.
package difffuzz

import (
	"context"
	"fmt"
	"math/rand"
	"time"
)

// Config is one fuzzing run.
type Config struct {
	Seed    int64
	Queries int // stop after this many queries
	// PerPhase is how many queries run in each of a round's three phases
	// (rows in the log, in files, split).
	PerPhase    int
	MaxFailures int // stop after this many differences
	Gates       Gates
	Logf        func(format string, args ...any)
}

// Failure is one difference found, reduced.
type Failure struct {
	Verdict Verdict
	Query   string // as first found
	Record  string // the reduced sqllogictest record
}

// Stats sum up a run.
type Stats struct {
	Queries int
	Errors  int // queries on which both sides raised the same class of error
	// ErrorCodes counts those errors by PostgreSQL's SQLSTATE: a code
	// that dominates is a generator wasting queries.
	ErrorCodes map[string]int
	Rounds     int
	Elapsed    time.Duration
	Failures   []Failure
	start      time.Time
}

// Fuzzer drives Loam and PostgreSQL side by side.
type Fuzzer struct {
	cfg  Config
	r    *rand.Rand
	loam *Side
	pg   *Side
}

// New connects to both databases.
func New(ctx context.Context, cfg Config, loamURL, pgURL string) (*Fuzzer, error) {
	if cfg.PerPhase == 0 {
		cfg.PerPhase = 15
	}
	if cfg.MaxFailures == 0 {
		cfg.MaxFailures = 5
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	f := &Fuzzer{cfg: cfg, r: rand.New(rand.NewSource(cfg.Seed)),
		loam: &Side{Name: "loam", URL: loamURL}, pg: &Side{Name: "postgres", URL: pgURL,
			// Without statistics PostgreSQL overestimates the tiny
			// tables, and JIT-compiles most queries: ten times slower.
			Params: map[string]string{"jit": "off"}}}
	if err := f.loam.connect(ctx); err != nil {
		return nil, err
	}
	if err := f.pg.connect(ctx); err != nil {
		f.loam.close()
		return nil, err
	}
	return f, nil
}

// Close ends both sessions.
func (f *Fuzzer) Close() {
	f.loam.close()
	f.pg.close()
}

// Run fuzzes until the query budget is spent or MaxFailures differences
// were found. An error is a failure of the harness itself (setup that
// PostgreSQL refused, a lost PostgreSQL session).
func (f *Fuzzer) Run(ctx context.Context) (*Stats, error) {
	st := &Stats{start: time.Now()}
	defer func() { st.Elapsed = time.Since(st.start) }()
	for st.Queries < f.cfg.Queries && len(st.Failures) < f.cfg.MaxFailures {
		st.Rounds++
		if err := f.round(ctx, st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// round makes a schema and runs queries with its rows in the log, in
// files, then split across both.
func (f *Fuzzer) round(ctx context.Context, st *Stats) error {
	s := genSchema(f.r, f.cfg.Gates)
	if err := f.createTables(ctx, s); err != nil {
		return err
	}
	for _, t := range s.Tables {
		rows := genRows(f.r, t, f.rowCount(), f.cfg.Gates.EagerErrors, f.cfg.Gates.NonASCII)
		if err := f.insert(ctx, t, rows); err != nil {
			return err
		}
		t.Log = rows
	}
	g := &gen{r: f.r, s: s, gates: f.cfg.Gates}
	for phase := 0; phase < 3; phase++ {
		switch phase {
		case 1:
			if err := f.loam.Exec(ctx, "CHECKPOINT"); err != nil {
				return err
			}
			for _, t := range s.Tables {
				t.Base, t.Log = append(t.Base, t.Log...), nil
			}
		case 2:
			for _, t := range s.Tables {
				rows := genRows(f.r, t, f.r.Intn(6), f.cfg.Gates.EagerErrors, f.cfg.Gates.NonASCII)
				if err := f.insert(ctx, t, rows); err != nil {
					return err
				}
				t.Log = append(t.Log, rows...)
			}
		}
		for i := 0; i < f.cfg.PerPhase && st.Queries < f.cfg.Queries; i++ {
			if phase == 2 && f.r.Intn(8) == 0 {
				// More rows between queries: the log grows under
				// what is already in files.
				t := s.Tables[f.r.Intn(len(s.Tables))]
				rows := genRows(f.r, t, 1+f.r.Intn(3), f.cfg.Gates.EagerErrors, f.cfg.Gates.NonASCII)
				if err := f.insert(ctx, t, rows); err != nil {
					return err
				}
				t.Log = append(t.Log, rows...)
			}
			q := g.query()
			st.Queries++
			if st.Queries%1000 == 0 {
				f.cfg.Logf("%d queries, %d rounds, %.0f queries/s, %d differences", st.Queries, st.Rounds, float64(st.Queries)/time.Since(st.start).Seconds(), len(st.Failures))
			}
			v, code := f.check(ctx, q)
			if code != "" {
				st.Errors++
				if st.ErrorCodes == nil {
					st.ErrorCodes = map[string]int{}
				}
				if st.ErrorCodes[code] == 0 {
					f.cfg.Logf("first %s on both sides: %s", code, q.SQL())
				}
				st.ErrorCodes[code]++
			}
			if v.Failed() {
				fail := f.reduce(ctx, s, q, v)
				st.Failures = append(st.Failures, fail)
				f.cfg.Logf("difference %d (%s), query %d:\n%s\n%s\n--- reduced record ---\n%s",
					len(st.Failures), v.Sig, st.Queries, fail.Query, v.Detail, fail.Record)
				if len(st.Failures) >= f.cfg.MaxFailures {
					return nil
				}
				// The reducer replaced the tables: start a new round.
				return nil
			}
		}
	}
	return nil
}

// rowCount is how many rows a table starts with: none now and then, to
// try empty inputs, else a few.
func (f *Fuzzer) rowCount() int {
	if f.r.Intn(8) == 0 {
		return 0
	}
	return 1 + f.r.Intn(10)
}

// check runs q on both sides and compares. code is PostgreSQL's SQLSTATE
// when both sides raised an error of the same class.
func (f *Fuzzer) check(ctx context.Context, q *Select) (Verdict, string) {
	sql := q.SQL()
	lr := f.loam.Query(ctx, sql)
	pr := f.pg.Query(ctx, sql)
	if lr.Lost != nil {
		if err := f.loam.reconnect(ctx); err != nil {
			return Verdict{Sig: "lost", Detail: fmt.Sprintf("Loam: %v; reconnect: %v", lr.Lost, err)}, ""
		}
	}
	if pr.Lost != nil {
		f.pg.reconnect(ctx)
	}
	v := compare(q, lr, pr, f.cfg.Gates)
	if !v.Failed() && lr.Err != nil && pr.Err != nil {
		return v, pr.Err.Code
	}
	return v, ""
}

// createTables drops the previous round's tables and creates s's on both
// sides.
func (f *Fuzzer) createTables(ctx context.Context, s *Schema) error {
	for _, side := range []*Side{f.loam, f.pg} {
		for i := 0; i < 4; i++ {
			if err := side.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS t%d", i)); err != nil {
				return err
			}
		}
		for _, t := range s.Tables {
			if err := side.Exec(ctx, t.CreateSQL()); err != nil {
				return err
			}
		}
	}
	return nil
}

// insert adds rows to t on both sides, by INSERT or, one time in four, by
// COPY.
func (f *Fuzzer) insert(ctx context.Context, t *Table, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	useCopy := f.r.Intn(4) == 0
	for _, side := range []*Side{f.loam, f.pg} {
		var err error
		if useCopy {
			err = side.Copy(ctx, t.Name, copyText(rows))
		} else {
			err = side.Exec(ctx, t.InsertSQL(rows))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
