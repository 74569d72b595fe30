package privileges

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// step is one statement of a script.
type step struct {
	line    int    // where it starts in the file
	session string // alice, alice@2
	sql     string
}

// role is the role the step's session connects as.
func (s step) role() string {
	r, _, _ := strings.Cut(s.session, "@")
	return r
}

// key names the step in the skip list: its session and its text with
// runs of white space made one space.
func (s step) key() string {
	return s.session + "> " + strings.Join(strings.Fields(s.sql), " ")
}

// readScript parses a scenario file.
func readScript(path string) ([]step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []step
	var cur *step
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur == nil {
			if trimmed == "" || strings.HasPrefix(trimmed, "--") {
				continue
			}
			sess, sql, ok := strings.Cut(trimmed, "> ")
			if !ok || sess == "" || strings.ContainsAny(sess, " \t") {
				return nil, fmt.Errorf("%s:%d: want `session> statement`, got %q", path, n, line)
			}
			cur = &step{line: n, session: sess, sql: sql}
		} else {
			cur.sql += "\n" + line
		}
		if strings.HasPrefix(cur.sql, `\`) || strings.HasSuffix(strings.TrimSpace(cur.sql), ";") {
			out = append(out, *cur)
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: statement does not end with ';'", path, cur.line)
	}
	return out, nil
}

// skips is testdata/skip.txt: "file | session> statement | reason" per
// line, the differences from PostgreSQL that Loam keeps.
type skips map[string]string

func readSkips(path string) (skips, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := skips{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want `file | session> statement | reason`", path, i+1)
		}
		st := step{}
		st.session, st.sql, _ = strings.Cut(parts[1], "> ")
		out[parts[0]+" | "+st.key()] = parts[2]
	}
	return out, nil
}
