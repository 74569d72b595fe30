package privileges

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// runner runs one script on one server, a connection per session.
type runner struct {
	url      func(role string) string // the server's URL for a role
	conns    map[string]*pgconn.PgConn
	notices  map[string]*[]string
	timeout  time.Duration
	prepared map[string]bool
}

func newRunner(url func(string) string) *runner {
	return &runner{url: url, conns: map[string]*pgconn.PgConn{}, notices: map[string]*[]string{}, timeout: 30 * time.Second}
}

func (r *runner) close() {
	for _, c := range r.conns {
		c.Close(context.Background())
	}
}

// conn is the step's session, connected on first use.
func (r *runner) conn(ctx context.Context, st step) (*pgconn.PgConn, error) {
	if c := r.conns[st.session]; c != nil {
		return c, nil
	}
	cfg, err := pgconn.ParseConfig(r.url(st.role()))
	if err != nil {
		return nil, err
	}
	var notes []string
	r.notices[st.session] = &notes
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		p := r.notices[st.session]
		*p = append(*p, fmt.Sprintf("%s: %s%s", n.Severity, n.Message, extra((*pgconn.PgError)(n))))
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r.conns[st.session] = c
	return c, nil
}

// extra is an error's detail and hint, as lines.
func extra(e *pgconn.PgError) string {
	var b strings.Builder
	if e.Detail != "" {
		b.WriteString("\nDETAIL: " + e.Detail)
	}
	if e.Hint != "" {
		b.WriteString("\nHINT: " + e.Hint)
	}
	if e.Position > 0 {
		fmt.Fprintf(&b, "\nPOSITION: %d", e.Position)
	}
	return b.String()
}

var (
	prepareRe = regexp.MustCompile(`(?s)^\\prepare\s+(\S+)\s+(.*)$`)
	executeRe = regexp.MustCompile(`^\\execute\s+(\S+)\s*$`)
	copyOutRe = regexp.MustCompile(`(?is)^COPY\b.*\bTO\s+STDOUT\b`)
	copyInRe  = regexp.MustCompile(`(?is)^COPY\b.*\bFROM\s+STDIN\b`)
)

// run runs a step and describes what came back: the tag or the error,
// notices, and the rows, one per line.
func (r *runner) run(st step) string {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	c, err := r.conn(ctx, st)
	if err != nil {
		return "CONNECT " + describeErr(err)
	}
	var results []*pgconn.Result
	sql := strings.TrimSpace(st.sql)
	switch {
	case prepareRe.MatchString(sql):
		m := prepareRe.FindStringSubmatch(sql)
		_, err := c.Prepare(ctx, m[1], m[2], nil)
		results = []*pgconn.Result{{CommandTag: pgconn.NewCommandTag("PREPARE"), Err: err}}
	case executeRe.MatchString(sql):
		m := executeRe.FindStringSubmatch(sql)
		results = []*pgconn.Result{c.ExecPrepared(ctx, m[1], nil, nil, nil).Read()}
	case copyOutRe.MatchString(sql):
		var buf bytes.Buffer
		tag, err := c.CopyTo(ctx, &buf, sql)
		res := &pgconn.Result{CommandTag: tag, Err: err}
		for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			if line != "" {
				res.Rows = append(res.Rows, [][]byte{[]byte(line)})
			}
		}
		results = []*pgconn.Result{res}
	case copyInRe.MatchString(sql):
		tag, err := c.CopyFrom(ctx, strings.NewReader(""), sql)
		results = []*pgconn.Result{{CommandTag: tag, Err: err}}
	default:
		results, err = c.Exec(ctx, sql).ReadAll()
		if err != nil && len(results) == 0 {
			results = []*pgconn.Result{{Err: err}}
		}
	}
	var b strings.Builder
	for _, res := range results {
		if res.Err != nil {
			b.WriteString("ERROR " + describeErr(res.Err))
		} else {
			b.WriteString(res.CommandTag.String())
		}
		b.WriteString("\n")
		if len(res.FieldDescriptions) > 0 {
			names := make([]string, len(res.FieldDescriptions))
			for i, f := range res.FieldDescriptions {
				names[i] = f.Name
			}
			b.WriteString("  [" + strings.Join(names, "|") + "]\n")
		}
		for _, row := range res.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				if v == nil {
					vals[i] = "NULL"
				} else {
					vals[i] = string(v)
				}
			}
			b.WriteString("  " + strings.Join(vals, "|") + "\n")
		}
	}
	if p := r.notices[st.session]; p != nil {
		for _, n := range *p {
			b.WriteString(n + "\n")
		}
		*p = nil
	}
	return b.String()
}

// describeErr is an error as the transcript shows it.
func describeErr(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + ": " + pe.Message + extra(pe)
	}
	return "(client) " + err.Error()
}
