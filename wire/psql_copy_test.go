package wire

import (
	"net"
	"os/exec"
	"strings"
	"testing"
)

// TestPsqlCopy drives psql's \copy against the server, when psql is
// installed.
func TestPsqlCopy(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	ts, stats := startCopyServer(t)
	host, port, _ := net.SplitHostPort(ts.addr)
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.CommandContext(testCtx(t), psql, append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1",
			"-h", host, "-p", port, "-U", "loam", "-d", "loam"}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = []string{"PGCONNECT_TIMEOUT=5", "PGSSLMODE=disable"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	data := lines(5000)
	out, err := run(data, "-c", `\copy t from stdin`)
	if err != nil {
		t.Fatalf("\\copy from: %v\n%s", err, out)
	}
	if got := stats.get(); got.bytes != int64(len(data)) {
		t.Errorf("engine read %d bytes, want %d", got.bytes, len(data))
	}
	out, err = run("", "-c", `\copy t to stdout rows=3`, "-c", "ints 1")
	if err != nil {
		t.Fatalf("\\copy to: %v\n%s", err, out)
	}
	if want := "1\trow 1\n2\trow 2\n3\trow 3\n"; !strings.HasPrefix(out, want) {
		t.Errorf("\\copy to printed %q, want %q first", out, want)
	}
	out, err = run(data, "-c", `\copy t from stdin failat=100`)
	t.Logf("psql said: %s", out)
	if err == nil || !strings.Contains(out, "missing data for column") {
		t.Errorf("\\copy with an engine error: %v\n%s", err, out)
	}
}
