package catalog

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
)

// TestPsqlDescribe runs psql 15's \dt and \d against Loam and PostgreSQL:
// psql sends its own catalog queries (see psql -E), and must print the
// same. \dt's owner is the connecting user, which differs between the two
// servers; it is compared by name.
func TestPsqlDescribe(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql not found (make psql installs Debian's postgresql-client): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	users := map[string]string{}
	for _, url := range []string{pgURL, loamURL} {
		c := connect(t, ctx, url, false)
		if _, err := c.Exec(ctx, setup); err != nil {
			t.Fatalf("setup: %v", err)
		}
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		users[url] = cfg.User
	}
	for _, cmd := range []struct {
		args []string
	}{
		{[]string{"-c", `\d llm_calls`}},
		{[]string{"-A", "-c", `\dt`}},
		{[]string{"-A", "-c", `\dt llm_*`}},
		{[]string{"-c", `\d nosuchtable`}},
		{[]string{"-c", `\dn`}},
		{[]string{"-c", `\d+ llm_calls`}},
	} {
		out := map[string]string{}
		for _, url := range []string{pgURL, loamURL} {
			args := append([]string{"-X", "-v", "ON_ERROR_STOP=1", "-d", url}, cmd.args...)
			// psql's exit status is part of what must agree (\d of a missing
			// table fails on both).
			b, err := exec.CommandContext(ctx, psql, args...).CombinedOutput()
			out[url] = strings.ReplaceAll(string(b), "|"+users[url]+"\n", "|OWNER\n") + fmt.Sprintf("(exit: %v)\n", err)
		}
		if out[pgURL] != out[loamURL] {
			t.Errorf("psql %s differs\nPostgreSQL:\n%s\nLoam:\n%s", strings.Join(cmd.args, " "), out[pgURL], out[loamURL])
		}
	}
	// \l lists other databases on each server: Loam's one must be listed,
	// with the columns psql 15 prints.
	b, err := exec.CommandContext(ctx, psql, "-X", "-A", "-v", "ON_ERROR_STOP=1", "-d", loamURL, "-c", `\l`).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "Name|Owner|Encoding|Collate|Ctype|ICU Locale|Locale Provider|Access privileges\nloam|loam|UTF8|") {
		t.Errorf("psql \\l on Loam: %v\n%s", err, b)
	}
}
