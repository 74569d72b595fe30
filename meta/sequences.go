package meta

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
)

// ErrSequenceLimit is what NextSequenceValues returns when a sequence
// without CYCLE has handed out its last value.
var ErrSequenceLimit = errors.New("meta: sequence reached its limit")

// Sequence is a sequence's definition (CREATE SEQUENCE's options, as
// PostgreSQL's pg_sequence keeps them) and its state. The state is shared
// by every server on the store: values are handed out by one atomic
// read-modify-write of the row, so no two callers ever get the same value.
type Sequence struct {
	Type      string // "smallint", "integer" or "bigint"
	Start     int64
	Increment int64 // never 0
	Min, Max  int64
	Cache     int64 // accepted and shown; every value comes from the store
	Cycle     bool
	// OwnedBy is the column owning the sequence ("table.column", the table
	// in the sequence's schema): a serial or identity column. Dropping the
	// table drops the sequence.
	OwnedBy string
	// Last is the last value handed out or set; Called says whether it was
	// handed out (nextval returns the value after it) or set with
	// is_called false (nextval returns it).
	Last   int64
	Called bool
}

// next returns n values after the state q, and the new state; a sequence
// without CYCLE fails with ErrSequenceLimit past its bound.
func (q Sequence) next(n int) ([]int64, Sequence, error) {
	out := make([]int64, 0, n)
	for len(out) < n {
		var v int64
		switch {
		case !q.Called:
			v = q.Last
		case q.Increment > 0 && q.Last > q.Max-q.Increment:
			if !q.Cycle {
				return nil, q, fmt.Errorf("%w: maximum value (%d)", ErrSequenceLimit, q.Max)
			}
			v = q.Min
		case q.Increment < 0 && q.Last < q.Min-q.Increment:
			if !q.Cycle {
				return nil, q, fmt.Errorf("%w: minimum value (%d)", ErrSequenceLimit, q.Min)
			}
			v = q.Max
		default:
			v = q.Last + q.Increment
		}
		q.Last, q.Called = v, true
		out = append(out, v)
	}
	return out, q, nil
}

// ---- the SQL store ----

const sequenceColumns = `seq_type, start_value, increment_by, min_value, max_value, cache_size, cycle, owned_by, last_value, is_called`

func scanSequence(row interface{ Scan(...any) error }) (Sequence, error) {
	var q Sequence
	err := row.Scan(&q.Type, &q.Start, &q.Increment, &q.Min, &q.Max, &q.Cache, &q.Cycle, &q.OwnedBy, &q.Last, &q.Called)
	return q, err
}

// CreateSequence stores a new sequence; ErrExists when ns.name is taken by
// another sequence.
func (s *sqlStore) CreateSequence(ctx context.Context, ns, name string, q Sequence) error {
	res, err := s.exec(ctx, `INSERT INTO loam_sequences (namespace, name, `+sequenceColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, name) DO NOTHING`,
		ns, name, q.Type, q.Start, q.Increment, q.Min, q.Max, q.Cache, q.Cycle, q.OwnedBy, q.Last, q.Called)
	if err != nil {
		return fmt.Errorf("meta: create sequence %s.%s: %w", ns, name, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("meta: create sequence %s.%s: %w", ns, name, ErrExists)
	}
	return nil
}

// Sequence returns a sequence's definition and state; ErrNotFound when
// there is none.
func (s *sqlStore) Sequence(ctx context.Context, ns, name string) (Sequence, error) {
	q, err := scanSequence(s.queryRow(ctx, `SELECT `+sequenceColumns+` FROM loam_sequences WHERE namespace = ? AND name = ?`, ns, name))
	if errors.Is(err, sql.ErrNoRows) {
		return Sequence{}, fmt.Errorf("meta: sequence %s.%s: %w", ns, name, ErrNotFound)
	}
	if err != nil {
		return Sequence{}, fmt.Errorf("meta: sequence %s.%s: %w", ns, name, err)
	}
	return q, nil
}

// DropSequence removes a sequence; ErrNotFound when there is none.
func (s *sqlStore) DropSequence(ctx context.Context, ns, name string) error {
	res, err := s.exec(ctx, `DELETE FROM loam_sequences WHERE namespace = ? AND name = ?`, ns, name)
	if err != nil {
		return fmt.Errorf("meta: drop sequence %s.%s: %w", ns, name, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("meta: drop sequence %s.%s: %w", ns, name, ErrNotFound)
	}
	return nil
}

// ListSequences lists the sequences of ns, sorted.
func (s *sqlStore) ListSequences(ctx context.Context, ns string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT name FROM loam_sequences WHERE namespace = ?`), ns)
	if err != nil {
		return nil, fmt.Errorf("meta: list sequences of %s: %w", ns, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("meta: list sequences of %s: %w", ns, err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: list sequences of %s: %w", ns, err)
	}
	sort.Strings(out)
	return out, nil
}

// NextSequenceValues hands out the next n values of a sequence in one
// transaction that holds the row (SQLite: the write lock its immediate
// transaction takes at BEGIN; PostgreSQL: SELECT … FOR UPDATE), so callers
// on any server never get the same value. ErrNotFound when there is no
// such sequence; ErrSequenceLimit when it runs out (nothing is taken then).
func (s *sqlStore) NextSequenceValues(ctx context.Context, ns, name string, n int) ([]int64, error) {
	var out []int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		q, err := scanSequence(tx.QueryRowContext(ctx, s.d.rebind(`SELECT `+sequenceColumns+` FROM loam_sequences
			WHERE namespace = ? AND name = ?`+s.d.forUpdate), ns, name))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		var after Sequence
		if out, after, err = q.next(n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.d.rebind(`UPDATE loam_sequences SET last_value = ?, is_called = ?
			WHERE namespace = ? AND name = ?`), after.Last, after.Called, ns, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("meta: nextval of sequence %s.%s: %w", ns, name, err)
	}
	return out, nil
}

// SetSequenceValue is setval: the sequence's last value becomes v, handed
// out (called) or not; ErrNotFound when there is no such sequence. The
// caller checks v against the bounds.
func (s *sqlStore) SetSequenceValue(ctx context.Context, ns, name string, v int64, called bool) error {
	res, err := s.exec(ctx, `UPDATE loam_sequences SET last_value = ?, is_called = ? WHERE namespace = ? AND name = ?`, v, called, ns, name)
	if err != nil {
		return fmt.Errorf("meta: setval of sequence %s.%s: %w", ns, name, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("meta: setval of sequence %s.%s: %w", ns, name, ErrNotFound)
	}
	return nil
}

// AlterSequence changes a sequence's definition or state by change, in one
// transaction holding its row (as NextSequenceValues does); ErrNotFound
// when there is none. An error from change leaves it as it was.
func (s *sqlStore) AlterSequence(ctx context.Context, ns, name string, change func(Sequence) (Sequence, error)) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		q, err := scanSequence(tx.QueryRowContext(ctx, s.d.rebind(`SELECT `+sequenceColumns+` FROM loam_sequences
			WHERE namespace = ? AND name = ?`+s.d.forUpdate), ns, name))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if q, err = change(q); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.d.rebind(`UPDATE loam_sequences SET seq_type = ?, start_value = ?, increment_by = ?,
			min_value = ?, max_value = ?, cache_size = ?, cycle = ?, owned_by = ?, last_value = ?, is_called = ?
			WHERE namespace = ? AND name = ?`), q.Type, q.Start, q.Increment, q.Min, q.Max, q.Cache, q.Cycle, q.OwnedBy, q.Last, q.Called, ns, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("meta: alter sequence %s.%s: %w", ns, name, err)
	}
	return nil
}
