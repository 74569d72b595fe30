package engine

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// commentNotKept takes COMMENT ON VIEW, INDEX and CONSTRAINT, which
// pg_dump emits and Loam has nowhere to keep (a view has no Iceberg table,
// indexes are not built, constraints live in a table property): the
// statement succeeds, so a restore goes on, and a notice says the comment
// is dropped.
func (s *Session) commentNotKept(ctx context.Context, cs *pg.CommentStmt, names []string) (*Cursor, error) {
	what := objectKind(cs.Objtype)
	name := ""
	if len(names) > 0 {
		name = names[len(names)-1]
	}
	if cs.Objtype == pg.ObjectType_OBJECT_VIEW {
		schema, view := qualified(names)
		cat := s.catalog()
		_, err := cat.Table(ctx, schema, view)
		cat.release()
		if err != nil {
			return nil, err
		}
	}
	s.notice("Loam does not keep comments on a %s: comment on %q not kept", what, name)
	return &Cursor{tag: "COMMENT", sess: s}, nil
}
