package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// updateRun is one UPDATE of 1% of events on one target.
type updateRun struct {
	Run     int     `json:"run"`
	Target  string  `json:"target"`
	Group   int     `json:"group"`
	Updated int64   `json:"updated"`
	Seconds float64 `json:"seconds"` // the UPDATE, from sending it to its command tag
	// AfterWhat is the statement run after the UPDATE, outside its time:
	// on Loam CHECKPOINT, which commits the UPDATE's deletes and new rows
	// into Iceberg (the link would do it within an interval anyway; this
	// is what that commit costs), on PostgreSQL VACUUM, which reclaims the
	// old row versions. Both leave the table as the next run should find
	// it.
	AfterWhat    string  `json:"after_what,omitempty"`
	AfterSeconds float64 `json:"after_seconds,omitempty"`
	Error        string  `json:"error,omitempty"`
}

// groupRows is how many of the ids 1 to rows are in group g (id % groups
// = g, 0 < g < groups).
func groupRows(rows int64, g int) int64 {
	if rows < int64(g) {
		return 0
	}
	return (rows-int64(g))/groups + 1
}

// bulkUpdate runs run's UPDATE on t: one statement, in autocommit, over
// the simple protocol (the text as a script or a console sends it), that
// changes the rows of group run, 1% of events, every row of which it has
// to look at. It checks the row count in the command tag and, afterwards
// and untimed, that exactly those rows were changed and no row was lost
// or duplicated.
func bulkUpdate(ctx context.Context, t *target, rows int64, run int, r *updateRun) error {
	c, err := pgx.Connect(ctx, t.connString)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	r.Group = run % groups
	want := groupRows(rows, r.Group)
	q := fmt.Sprintf(`UPDATE events SET v = v + 1, note = 'updated' WHERE grp = %d`, r.Group)
	t0 := time.Now()
	tag, err := c.Exec(ctx, q, pgx.QueryExecModeSimpleProtocol)
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	r.Updated = tag.RowsAffected()
	if r.Updated != want {
		return fmt.Errorf("%s: command tag %q, want %d rows", q, tag, want)
	}

	r.AfterWhat = `VACUUM events`
	if t.isLoam() {
		r.AfterWhat = `CHECKPOINT`
	}
	t0 = time.Now()
	if _, err := c.Exec(ctx, r.AfterWhat, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("%s: %w", r.AfterWhat, err)
	}
	r.AfterSeconds = time.Since(t0).Seconds()

	var total, changed, wrong int64
	check := fmt.Sprintf(`SELECT count(*), count(*) FILTER (WHERE grp = %[1]d AND note = 'updated' AND v = id + 1), `+
		`count(*) FILTER (WHERE grp = %[1]d AND NOT (note = 'updated' AND v = id + 1)) FROM events`, r.Group)
	if err := c.QueryRow(ctx, check, pgx.QueryExecModeSimpleProtocol).Scan(&total, &changed, &wrong); err != nil {
		return fmt.Errorf("check after the UPDATE: %w", err)
	}
	if total != rows || changed != want || wrong != 0 {
		return fmt.Errorf("after the UPDATE: %d rows (want %d), %d of group %d updated (want %d), %d not updated (want 0)",
			total, rows, changed, r.Group, want, wrong)
	}
	return nil
}
