package wire

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// TestIdleTimeouts: idle_session_timeout ends a connection waiting
// outside a block with 57P05, idle_in_transaction_session_timeout one
// waiting inside with 25P03 (PostgreSQL 15's messages), each a FATAL sent
// while the client says nothing.
func TestIdleTimeouts(t *testing.T) {
	dir := t.TempDir()
	eng, err := engine.Open(context.Background(), engine.Config{
		MetastoreURL: "sqlite://" + dir + "/meta.db",
		WarehouseURL: "file://" + dir + "/warehouse",
		DataDir:      dir,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ts := startServer(t, Config{Engine: FromEngine(eng)})
	for _, tc := range []struct {
		setup      []string
		code, want string
	}{
		{[]string{"SET idle_session_timeout = '50ms'"}, pgerr.IdleSessionTimeout, "terminating connection due to idle-session timeout"},
		{[]string{"SET idle_in_transaction_session_timeout = 50", "BEGIN"}, pgerr.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout"},
		// A block's wait uses only the in-transaction setting.
		// (One Query, so no idle wait comes between the SETs on a slow machine.)
		{[]string{"SET idle_session_timeout = '50ms'; SET idle_in_transaction_session_timeout = '40ms'; BEGIN"}, pgerr.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout"},
	} {
		r := dialRaw(t, ts.addr)
		r.startup(t)
		for _, q := range tc.setup {
			r.send(t, &pgproto3.Query{String: q})
			r.until(t, 'Z')
		}
		ms := r.until(t, 'E')
		er := ms[len(ms)-1].(*pgproto3.ErrorResponse)
		if er.Severity != "FATAL" || er.Code != tc.code || er.Message != tc.want {
			t.Errorf("%v: %s %s %q", tc.setup, er.Severity, er.Code, er.Message)
		}
		if _, err := r.fe.Receive(); err == nil {
			t.Error("connection open after the timeout")
		}
	}
}
