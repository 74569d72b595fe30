package wire

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

var sleepWoke = make(chan error, 1)

// A statement stops soon after its client closes the connection (no
// CancelRequest: the client just goes), under the simple and the extended
// protocol, though the statement has sent nothing yet.
func TestClosedConnectionStopsStatement(t *testing.T) {
	ts := startServer(t, Config{})
	for _, extended := range []bool{false, true} {
		nc, fe := rawSession(t, ts.addr)
		if extended {
			fe.Send(&pgproto3.Parse{Query: "sleepwatch"})
			fe.Send(&pgproto3.Bind{})
			fe.Send(&pgproto3.Execute{})
			fe.Send(&pgproto3.Sync{})
		} else {
			fe.Send(&pgproto3.Query{String: "sleepwatch"})
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-sleepWoke:
			t.Fatalf("extended=%v: the statement stopped before the client left: %v", extended, err)
		case <-time.After(300 * time.Millisecond):
		}
		nc.Close()
		select {
		case err := <-sleepWoke:
			if !errors.Is(err, errClientGone) {
				t.Fatalf("extended=%v: stopped by %v, want errClientGone", extended, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("extended=%v: the statement still runs 2s after its client closed the connection", extended)
		}
	}
}

// A watched statement leaves the messages pipelined after it for the
// loop: many round trips of queries and pings all answer.
func TestWatchKeepsPipelinedMessages(t *testing.T) {
	ts := startServer(t, Config{})
	c := ts.connect(t, "")
	ctx := testCtx(t)
	for i := 0; i < 20; i++ {
		rows, err := c.Query(ctx, "ints 3")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if rows.Err() != nil || n != 3 {
			t.Fatalf("ints 3: %d rows, %v", n, rows.Err())
		}
		if err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// rawSession is a started session on a bare connection, ready for query.
func rawSession(t *testing.T, addr string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "loam", "database": "loam"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return nc, fe
		}
	}
}
