// Package jdbc runs PgJDBC, the PostgreSQL JDBC driver, against Loam: the
// Java program ClientTest.java, compiled with javac at test time, connects
// with the driver's default settings and checks parameters and results of
// every supported type, statements re-executed past the driver's prepare
// threshold (named statements, binary results bound without a Describe),
// errors with their SQLSTATE and transactions. It runs against PostgreSQL
// 15 too (meta/pgtest), which is what its expected values come from.
//
// It needs Java 17 (javac, java) and Debian's libpostgresql-jdbc-java
// (/usr/share/java/postgresql.jar, or $PGJDBC_JAR); `make test` installs
// the jar when it is missing. LOAM_BIN names the server binary; without it
// the test builds cmd/loam.
package jdbc

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

const defaultJar = "/usr/share/java/postgresql.jar"

// compile builds ClientTest.java into a temporary directory and returns
// the classpath that runs it.
func compile(t *testing.T) string {
	t.Helper()
	jar := os.Getenv("PGJDBC_JAR")
	if jar == "" {
		jar = defaultJar
	}
	if _, err := os.Stat(jar); err != nil {
		t.Fatalf("PgJDBC jar %s: %v (`make test` installs Debian's libpostgresql-jdbc-java)", jar, err)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatalf("javac not found: the test compiles ClientTest.java with a JDK (17 or later)")
	}
	dir := t.TempDir()
	out, err := exec.Command(javac, "-encoding", "UTF-8", "-cp", jar, "-d", dir, "ClientTest.java").CombinedOutput()
	if err != nil {
		t.Fatalf("javac ClientTest.java: %v\n%s", err, out)
	}
	return dir + string(os.PathListSeparator) + jar
}

// runClient runs the compiled program against a JDBC URL, failing the test
// with its output when it fails.
func runClient(t *testing.T, classpath, jdbcURL, zone string, props ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// The JVM's zone is the session's TimeZone (the driver sends it at
	// startup) and the offset it writes after dates and timestamps.
	args := append([]string{"-Duser.timezone=" + zone, "-Dfile.encoding=UTF-8", "-Duser.language=en"}, props...)
	cmd := exec.CommandContext(ctx, "java", append(args, "-cp", classpath, "ClientTest", jdbcURL)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ClientTest against %s: %v\n%s", jdbcURL, err, out)
	}
	return string(out)
}

func TestPgJDBC(t *testing.T) {
	cp := compile(t)
	for _, zone := range []string{"UTC", "America/New_York"} {
		t.Run("loam/"+zone, func(t *testing.T) {
			srv := loamtest.Start(t, loamtest.Binary(t))
			addr := srv.Addr
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("server log:\n%s", srv.Log())
				}
			})
			// Loam commits each write as it runs: neither ROLLBACK nor an
			// error later in the same implicit transaction (a batch) undoes
			// an INSERT. A known gap; the program checks what it keeps.
			out := runClient(t, cp, "jdbc:postgresql://"+addr+"/loam?user=loam", zone, "-DrollbackKeepsWrites=true", "-Dcatalog=true")
			t.Log(lastLine(out))
		})
		t.Run("postgres/"+zone, func(t *testing.T) {
			u, err := url.Parse(pgtest.Database(t))
			if err != nil {
				t.Fatal(err)
			}
			out := runClient(t, cp, fmt.Sprintf("jdbc:postgresql://%s%s?user=%s", u.Host, u.Path, u.User.Username()), zone,
				"-Dcatalog=true")
			t.Log(lastLine(out))
		})
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
