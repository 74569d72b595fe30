// Package slt reads sqllogictest scripts and runs them against a server that
// speaks the PostgreSQL wire protocol.
//
// The format is the one of D. Richard Hipp's sqllogictest (see
// ../shared/conformance/sqllogictest/about.wiki): records separated by blank
// lines; `statement ok|error [SQLSTATE|message]` (a Loam addition: the
// code the error must have, or text its message must contain); `query <types> [nosort|rowsort|valuesort]
// [label]` followed by the SQL, a `----` line and the expected values;
// `skipif|onlyif <engine>` prefixes; `hash-threshold N`; `halt`; `#`
// comments. Values are rendered by the declared column type (I, R, T) the
// way the original harness renders them, sorted as it sorts them, and
// results with more values than the hash threshold are compared as
// "N values hashing to <md5>".
//
// Parse reads a script; Runner.Run executes the records on a pgx connection
// over the simple query protocol and counts what passed, failed and was
// skipped (see runner.go).
package slt

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// sqlstate is an error code: five digits or upper-case letters.
var sqlstate = regexp.MustCompile(`^[0-9A-Z]{5}$`)

// Kind is what a record does.
type Kind int

const (
	Statement     Kind = iota // statement ok|error
	Query                     // query <types> ...
	HashThreshold             // hash-threshold N
	Halt                      // halt: ignore the rest of the script
)

func (k Kind) String() string {
	switch k {
	case Statement:
		return "statement"
	case Query:
		return "query"
	case HashThreshold:
		return "hash-threshold"
	case Halt:
		return "halt"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// SortMode is how a query's values are ordered before they are compared.
type SortMode int

const (
	NoSort    SortMode = iota // as received
	RowSort                   // rows sorted by their rendered values, column by column
	ValueSort                 // every value sorted on its own
)

func (m SortMode) String() string {
	return [...]string{"nosort", "rowsort", "valuesort"}[m]
}

// Condition is a skipif/onlyif prefix of a record.
type Condition struct {
	Only   bool   // onlyif (else skipif)
	Engine string // e.g. postgresql, sqlite, mysql
}

// Record is one record of a script.
type Record struct {
	Line       int // line of the record's first non-comment line, from 1
	Kind       Kind
	Conditions []Condition

	SQL string // Statement, Query: comment lines removed, no terminator

	ExpectError bool   // Statement: `statement error`
	ErrorCode   string // Statement: `statement error 42883`, the SQLSTATE expected; empty: any
	ErrorText   string // Statement: `statement error some text`, in the message expected; empty: any

	Types    string   // Query: one of I, R, T per column
	Sort     SortMode // Query
	Label    string   // Query: optional label
	Expected []string // Query: the lines after ----, one value (or row) per line
	HasDash  bool     // Query: the record had a ---- line

	Threshold int // HashThreshold
}

// Skipped reports whether the record is not run by engine: it names the
// engine in a skipif, or names another engine in an onlyif.
func (r *Record) Skipped(engine string) bool {
	for _, c := range r.Conditions {
		same := strings.EqualFold(c.Engine, engine)
		if c.Only != same {
			return true
		}
	}
	return false
}

// ParseFile parses the script at path.
func ParseFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse parses a script; name is used in error messages. Lines are
// separated by \n (a trailing \r is dropped). Comment lines (first
// character #) are removed before anything else, so they neither separate
// records nor end up in SQL.
func Parse(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)

	var (
		records []Record
		block   []string // lines of the current record
		lines   []int    // their line numbers
		lineNo  int
	)
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		recs, err := parseBlock(block, lines)
		block, lines = block[:0], lines[:0]
		if err != nil {
			return fmt.Errorf("%s:%w", name, err)
		}
		records = append(records, recs...)
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		block = append(block, line)
		lines = append(lines, lineNo)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return records, nil
}

// parseBlock parses the non-comment lines of one record. Conditions may
// precede a statement or query; a control record (halt, hash-threshold)
// stands on one line, and several control lines in a row are accepted.
func parseBlock(block []string, lines []int) ([]Record, error) {
	var (
		out   []Record
		conds []Condition
	)
	for i := 0; i < len(block); i++ {
		f := strings.Fields(block[i])
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) < 2 {
				return nil, fmt.Errorf("%d: %s needs an engine name", lines[i], f[0])
			}
			conds = append(conds, Condition{Only: f[0] == "onlyif", Engine: f[1]})
		case "halt":
			out = append(out, Record{Line: lines[i], Kind: Halt, Conditions: conds})
			conds = nil
		case "hash-threshold":
			if len(f) != 2 {
				return nil, fmt.Errorf("%d: hash-threshold needs one number", lines[i])
			}
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%d: bad hash-threshold %q", lines[i], f[1])
			}
			out = append(out, Record{Line: lines[i], Kind: HashThreshold, Threshold: n, Conditions: conds})
			conds = nil
		case "statement":
			if len(f) < 2 || (f[1] != "ok" && f[1] != "error") || f[1] == "ok" && len(f) > 2 {
				return nil, fmt.Errorf("%d: want `statement ok` or `statement error [SQLSTATE|message]`, have %q", lines[i], block[i])
			}
			code, text := "", ""
			if rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(block[i]), "statement error")); f[1] == "error" && rest != "" {
				if sqlstate.MatchString(rest) {
					code = rest
				} else {
					text = rest
				}
			}
			sql := strings.Join(block[i+1:], "\n")
			if strings.TrimSpace(sql) == "" {
				return nil, fmt.Errorf("%d: statement without SQL", lines[i])
			}
			return append(out, Record{Line: lines[i], Kind: Statement, Conditions: conds,
				ExpectError: f[1] == "error", ErrorCode: code, ErrorText: text, SQL: sql}), nil
		case "query":
			rec, err := parseQuery(f, block[i+1:], lines[i])
			if err != nil {
				return nil, err
			}
			rec.Conditions = conds
			return append(out, rec), nil
		default:
			return nil, fmt.Errorf("%d: unknown record type %q", lines[i], f[0])
		}
	}
	if len(conds) > 0 {
		return nil, fmt.Errorf("%d: skipif/onlyif without a statement or query", lines[len(lines)-1])
	}
	return out, nil
}

func parseQuery(head, rest []string, line int) (Record, error) {
	rec := Record{Line: line, Kind: Query}
	if len(head) < 2 {
		return rec, fmt.Errorf("%d: query needs a type string", line)
	}
	rec.Types = head[1]
	for _, c := range rec.Types {
		if c != 'I' && c != 'R' && c != 'T' {
			return rec, fmt.Errorf("%d: bad column type %q in %q (want I, R or T)", line, c, rec.Types)
		}
	}
	if len(head) > 2 {
		switch head[2] {
		case "nosort":
			rec.Sort = NoSort
		case "rowsort":
			rec.Sort = RowSort
		case "valuesort":
			rec.Sort = ValueSort
		default:
			return rec, fmt.Errorf("%d: bad sort mode %q", line, head[2])
		}
	}
	if len(head) > 3 {
		rec.Label = head[3]
	}
	if len(head) > 4 {
		return rec, fmt.Errorf("%d: too many words in %q", line, strings.Join(head, " "))
	}
	var sql []string
	for i, l := range rest {
		if l == "----" {
			rec.HasDash = true
			rec.Expected = append([]string(nil), rest[i+1:]...)
			break
		}
		sql = append(sql, l)
	}
	rec.SQL = strings.Join(sql, "\n")
	if strings.TrimSpace(rec.SQL) == "" {
		return rec, fmt.Errorf("%d: query without SQL", line)
	}
	return rec, nil
}

// Render turns one value received as text (nil for NULL) into its
// sqllogictest form for column type typ:
//
//	I  an integer, as %d; a floating-point value is truncated toward zero,
//	   a boolean is 1 or 0, anything else non-numeric is 0 (as SQLite's
//	   column_int64 would have it)
//	R  %.3f
//	T  the text; (empty) for the empty string; control and unprintable
//	   characters as @
//
// NULL is NULL whatever the type.
func Render(v []byte, typ byte) string {
	if v == nil {
		return "NULL"
	}
	s := string(v)
	switch typ {
	case 'I':
		return strconv.FormatInt(toInt(s), 10)
	case 'R':
		return formatFloat(toFloat(s))
	default:
		if s == "" {
			return "(empty)"
		}
		return strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || !unicode.IsPrint(r) {
				return '@'
			}
			return r
		}, s)
	}
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	if s == "-0.000" { // C's printf gives -0.000 too, but only for a true -0
		if !math.Signbit(f) {
			s = "0.000"
		}
	}
	return s
}

// toInt converts text to an integer the way SQLite's column_int64 does for
// the types a PostgreSQL server sends: integers as they are, decimals and
// floats truncated toward zero (saturating), t/f as 1/0, else the longest
// numeric prefix, else 0.
func toInt(s string) int64 {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n
	}
	switch t {
	case "t", "true":
		return 1
	case "f", "false":
		return 0
	}
	f, ok := parseFloatPrefix(t)
	if !ok || math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func toFloat(s string) float64 {
	t := strings.TrimSpace(s)
	switch t {
	case "t", "true":
		return 1
	case "f", "false":
		return 0
	}
	f, _ := parseFloatPrefix(t)
	return f
}

var numPrefix = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?`)

// parseFloatPrefix parses s, or else its longest numeric prefix.
func parseFloatPrefix(s string) (float64, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, true
	}
	if m := numPrefix.FindString(s); m != "" {
		f, err := strconv.ParseFloat(m, 64)
		return f, err == nil
	}
	return 0, false
}

// SortValues orders rendered values, ncol to a row, as mode says: rowsort
// compares rows column by column with byte-wise string comparison (C's
// strcmp), valuesort sorts all values on their own.
func SortValues(vals []string, ncol int, mode SortMode) {
	switch mode {
	case ValueSort:
		sort.Strings(vals)
	case RowSort:
		if ncol <= 0 || len(vals)%ncol != 0 {
			return
		}
		rows := make([][]string, len(vals)/ncol)
		for i := range rows {
			rows[i] = vals[i*ncol : (i+1)*ncol : (i+1)*ncol]
		}
		sort.SliceStable(rows, func(i, j int) bool {
			for k := range ncol {
				if rows[i][k] != rows[j][k] {
					return rows[i][k] < rows[j][k]
				}
			}
			return false
		})
		sorted := make([]string, 0, len(vals))
		for _, r := range rows {
			sorted = append(sorted, r...)
		}
		copy(vals, sorted)
	}
}

// HashValues is the result line the harness writes for a result set of more
// values than the hash threshold: "N values hashing to <md5>", the MD5 of
// every value followed by a newline.
func HashValues(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		io.WriteString(h, v)
		io.WriteString(h, "\n")
	}
	return fmt.Sprintf("%d values hashing to %s", len(vals), hex.EncodeToString(h.Sum(nil)))
}

var hashLine = regexp.MustCompile(`^\d+ values hashing to [0-9a-f]{32}$`)

// Match compares a query's rendered, sorted values (ncol to a row) with the
// expected lines of its record under hash threshold threshold (0: never
// hash). It accepts the expected values as the corpus lists them, one value
// per line, or one row per line with values separated by spaces or tabs; a
// single "N values hashing to H" line is compared with the hash of the
// values. It returns the form of the actual values that was compared, for
// messages.
func Match(expected, vals []string, ncol, threshold int) (bool, string) {
	if len(expected) == 1 && hashLine.MatchString(strings.TrimSpace(expected[0])) {
		got := HashValues(vals)
		return got == strings.TrimSpace(expected[0]), got
	}
	if threshold > 0 && len(vals) > threshold {
		// The file should hold a hash here; compare the values anyway.
		if equalLines(expected, vals) {
			return true, ""
		}
		return false, HashValues(vals)
	}
	if equalLines(expected, vals) {
		return true, strings.Join(vals, "\n")
	}
	// One row per line.
	if ncol > 1 && len(vals)%ncol == 0 && len(expected) == len(vals)/ncol {
		ok := true
		for i, line := range expected {
			if !equalFields(strings.Fields(line), vals[i*ncol:(i+1)*ncol]) {
				ok = false
				break
			}
		}
		if ok {
			return true, ""
		}
	}
	return false, strings.Join(vals, "\n")
}

func equalLines(expected, vals []string) bool {
	if len(expected) != len(vals) {
		return false
	}
	for i := range vals {
		if strings.TrimRight(expected[i], " \t") != vals[i] {
			return false
		}
	}
	return true
}

func equalFields(fields, vals []string) bool {
	if len(fields) != len(vals) {
		return false
	}
	for i := range vals {
		if fields[i] != vals[i] {
			return false
		}
	}
	return true
}
