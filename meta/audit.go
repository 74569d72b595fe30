package meta

import (
	"context"
	"fmt"
)

// AppendAudit adds an event to loam_audit; a zero Time is taken as now by
// the caller's clock.
func (s *sqlStore) AppendAudit(ctx context.Context, e AuditEvent) error {
	if _, err := s.exec(ctx, `INSERT INTO loam_audit (at, role, address, kind, statement, ok, detail) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		s.d.timeArg(e.Time), e.Role, e.Address, e.Kind, e.Statement, e.OK, e.Detail); err != nil {
		return fmt.Errorf("meta: audit %s by %q: %w", e.Kind, e.Role, err)
	}
	return nil
}

// Audit lists the newest limit events (all when limit ≤ 0), oldest first.
func (s *sqlStore) Audit(ctx context.Context, limit int) ([]AuditEvent, error) {
	q := "SELECT at, role, address, kind, statement, ok, detail FROM loam_audit ORDER BY id DESC"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("meta: audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEvent
	for rows.Next() {
		var e AuditEvent
		var at any
		if err := rows.Scan(&at, &e.Role, &e.Address, &e.Kind, &e.Statement, &e.OK, &e.Detail); err != nil {
			return nil, fmt.Errorf("meta: audit: %w", err)
		}
		if e.Time, err = s.d.timeValue(at); err != nil {
			return nil, fmt.Errorf("meta: audit: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("meta: audit: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
