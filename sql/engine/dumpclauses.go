package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/pgcatalog"
	"github.com/loamdb/loam/storage/link"
)

// ALTER TABLE … SET (…) also takes the options a dump's clause lines
// carry (pgcatalog.DumpClausePrefix), so a restored table gets them back.
func init() {
	optionProps["commit_interval"] = []string{PropCommitInterval, link.CommitIntervalProperty}
	optionProps["merge"] = []string{PropMerge}
	optionProps["target_file_size"] = []string{table.WriteTargetFileSizeBytesKey}
}

// dumpClauseForms are the clauses a comment's "Loam: " line may hold:
// what pg_dump was shown of a table's PARTITIONED BY, SORTED BY and WITH
// (…) (sql/pgcatalog/dumpmode.go).
var dumpClauseForms = []string{"SET PARTITIONED BY (", "SET SORTED BY (", "SET ("}

// splitDumpClauses separates a table comment's trailing "Loam: " lines
// from the comment before them.
func splitDumpClauses(comment string) (rest string, clauses []string) {
	lines := strings.Split(comment, "\n")
	n := len(lines)
	for n > 0 && strings.HasPrefix(lines[n-1], pgcatalog.DumpClausePrefix) {
		n--
	}
	for _, l := range lines[n:] {
		clauses = append(clauses, strings.TrimPrefix(l, pgcatalog.DumpClausePrefix))
	}
	if len(clauses) == 0 {
		return comment, nil
	}
	return strings.TrimRight(strings.Join(lines[:n], "\n"), "\n"), clauses
}

// applyDumpClauses runs each clause as ALTER TABLE ns.name <clause>: a
// table restored from Loam's pg_dump output gets its partitioning, sort
// order and options back when its comment arrives (right after CREATE
// TABLE, before its rows). Only the three SET forms are run, each as one
// statement, with the caller's privileges.
func (s *Session) applyDumpClauses(ctx context.Context, ns, name string, clauses []string) error {
	target := expr.QuoteIdent(ns) + "." + expr.QuoteIdent(name)
	for _, c := range clauses {
		ok := false
		for _, f := range dumpClauseForms {
			ok = ok || strings.HasPrefix(c, f)
		}
		if !ok {
			return pgerr.New(pgerr.InvalidParameterValue, "table %s's comment line %q is not a Loam clause (SET PARTITIONED BY, SET SORTED BY or SET (…))", name, pgcatalog.DumpClausePrefix+c)
		}
		q := "ALTER TABLE " + target + " " + c
		sts, err := s.PrepareSimple(ctx, q)
		if err != nil {
			return fmt.Errorf("table %s's Loam clause %q: %w", name, c, err)
		}
		if len(sts) != 1 {
			return pgerr.New(pgerr.InvalidParameterValue, "table %s's comment line %q is not one clause", name, pgcatalog.DumpClausePrefix+c)
		}
		cur, err := s.Execute(ctx, sts[0], nil)
		if err != nil {
			return fmt.Errorf("table %s's Loam clause %q: %w", name, c, err)
		}
		cur.Close()
	}
	return nil
}
