package engine_test

import (
	"context"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// A MERGE is refused at Parse with 0A000: described as
// taking no parameters, the client's Bind of its $1 failed in the client
// (pgx: "expected 0 arguments, got 1") before the server said why.
func TestPrepareUnsupportedWrite(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, openEngine(t))
	if _, err := runSQL(ctx, s, "CREATE TABLE t (id text, b bool)"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"MERGE INTO t USING t AS s ON t.id = s.id WHEN MATCHED AND s.id = $1 THEN DELETE",
	} {
		if _, err := s.Prepare(ctx, q, nil); sqlstate(err) != pgerr.FeatureNotSupported {
			t.Errorf("Prepare(%q): %v, want SQLSTATE 0A000", q, err)
		}
	}
}
