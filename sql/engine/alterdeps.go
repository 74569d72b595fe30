package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
)

// What depends on a column an ALTER TABLE drops or renames: views, which
// Loam keeps as their SQL text (PostgreSQL keeps them by column number,
// so a rename passes through them), and the sequences serial and identity
// columns own, recorded as "table.column".

// columnViews lists the views that read table key and may use column col:
// their SQL names it, or selects * (which PostgreSQL expands when the
// view is created, so the view uses every column there was).
func (s *Session) columnViews(ctx context.Context, key link.Key, col string) ([]string, error) {
	views, err := s.allViews(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range views {
		if !slices.Contains(v.reads, key) {
			continue
		}
		def, err := s.eng.meta.View(ctx, v.key.NS, v.key.Name)
		if errors.Is(err, meta.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if mentions(def.SQL, col) {
			out = append(out, v.key.Name)
		}
	}
	return out, nil
}

// mentions says whether SQL text has col as an identifier, or a *.
func mentions(sql, col string) bool {
	toks, err := pg.Scan(sql)
	if err != nil {
		return true
	}
	for _, t := range toks.Tokens {
		text := sql[t.Start:t.End]
		switch {
		case t.Token == pg.Token_ASCII_42:
			return true
		case t.Token == pg.Token_IDENT || t.KeywordKind != pg.KeywordKind_NO_KEYWORD:
			if strings.HasPrefix(text, `"`) {
				text = strings.ReplaceAll(strings.Trim(text, `"`), `""`, `"`)
			} else {
				text = strings.ToLower(text)
			}
			if text == col {
				return true
			}
		}
	}
	return false
}

// refuseColumnViews refuses to drop or rename a column views use.
func (s *Session) refuseColumnViews(ctx context.Context, key link.Key, col string, drop bool) error {
	views, err := s.columnViews(ctx, key, col)
	if err != nil || len(views) == 0 {
		return err
	}
	if drop {
		e := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", col, key.Name).
			WithHint("Drop the views first: DROP … CASCADE of a column is not supported.")
		e.Detail = fmt.Sprintf("view %s depends on column %s of table %s", views[0], col, key.Name)
		return e
	}
	return pgerr.New(pgerr.FeatureNotSupported, "cannot rename column %s of table %s: view %s uses it, and Loam keeps views as their SQL text", col, key.Name, views[0]).
		WithHint("Drop the view, rename the column, and create the view again.")
}

// reownSequences rewrites the owner ("table.column") of the sequences of
// schema ns that rename maps to a new owner, after a RENAME of their
// table or column; ROLLBACK puts the owners back.
func (s *Session) reownSequences(ctx context.Context, ns string, rename func(owner string) (string, bool)) error {
	names, err := s.eng.meta.ListSequences(ctx, ns)
	if err != nil {
		return err
	}
	for _, n := range names {
		sq, err := s.eng.meta.Sequence(ctx, ns, n)
		if err != nil {
			continue // dropped meanwhile
		}
		to, ok := rename(sq.OwnedBy)
		if !ok {
			continue
		}
		from, name := sq.OwnedBy, n
		set := func(owner string) func(meta.Sequence) (meta.Sequence, error) {
			return func(q meta.Sequence) (meta.Sequence, error) { q.OwnedBy = owner; return q, nil }
		}
		if err := s.eng.meta.AlterSequence(ctx, ns, name, set(to)); err != nil {
			return fmt.Errorf("sequence %s.%s: %w", ns, name, err)
		}
		s.onRollback(func(ctx context.Context) error { return s.eng.meta.AlterSequence(ctx, ns, name, set(from)) })
	}
	return nil
}

// dropColumnSequences drops the sequences a dropped column owned, as
// PostgreSQL does; ROLLBACK brings them back.
func (s *Session) dropColumnSequences(ctx context.Context, ns, table, col string) error {
	names, err := s.eng.meta.ListSequences(ctx, ns)
	if err != nil {
		return err
	}
	for _, n := range names {
		sq, err := s.eng.meta.Sequence(ctx, ns, n)
		if err != nil || sq.OwnedBy != table+"."+col {
			continue
		}
		if err := s.eng.meta.DropSequence(ctx, ns, n); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return fmt.Errorf("drop sequence %s.%s: %w", ns, n, err)
		}
		s.undropSequence(ns, n, sq)
	}
	return nil
}
