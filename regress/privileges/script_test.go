package privileges

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadScript checks the scenario format: a session prefix, statements
// running over lines until ';', comments, and one-line directives.
func TestReadScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	text := "-- a comment\n\nloam> CREATE USER alice;\nalice@2> SELECT 1,\n  2;\nalice> \\prepare p SELECT 1\nalice> \\execute p\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readScript(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{line: 3, session: "loam", sql: "CREATE USER alice;"},
		{line: 4, session: "alice@2", sql: "SELECT 1,\n  2;"},
		{line: 6, session: "alice", sql: `\prepare p SELECT 1`},
		{line: 7, session: "alice", sql: `\execute p`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
	if r := got[1].role(); r != "alice" {
		t.Errorf("role of alice@2 = %q", r)
	}
	if k := got[1].key(); k != "alice@2> SELECT 1, 2;" {
		t.Errorf("key = %q", k)
	}
	for _, bad := range []string{"no prefix here;\n", "loam> SELECT 1\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readScript(path); err == nil {
			t.Errorf("readScript(%q) succeeded", bad)
		}
	}
}

// TestSkipsHaveReasons checks testdata/skip.txt parses: every entry
// names its file and statement and says why.
func TestSkipsHaveReasons(t *testing.T) {
	skip, err := readSkips("testdata/skip.txt")
	if err != nil {
		t.Fatal(err)
	}
	for k, reason := range skip {
		if len(reason) < 20 {
			t.Errorf("%s: reason %q says too little", k, reason)
		}
	}
}
