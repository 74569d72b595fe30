package engine

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// PostgreSQL's lock modes as LockStmt numbers them (lockdefs.h).
const (
	lockAccessShare = 1
	lockRowShare    = 2
)

// lockTables runs LOCK [TABLE] t [, …] [IN mode MODE] [NOWAIT], which
// pg_dump sends (IN ACCESS SHARE MODE) for every table it dumps. A
// transaction's reads already see one snapshot and a table's DDL does
// not wait for readers, so ACCESS SHARE and ROW SHARE only check that
// the tables exist. ROW EXCLUSIVE and stronger modes take the table-wide
// row lock a writing transaction takes (held to the end of the
// transaction), which is stricter than PostgreSQL for the SHARE modes:
// two SHARE lockers wait for each other.
func (s *Session) lockTables(ctx context.Context, st *Statement, ls *pg.LockStmt) (*Cursor, error) {
	if s.tx == 'I' && !st.multi {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	for _, n := range ls.Relations {
		rv := n.GetRangeVar()
		cat := s.catalog()
		ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
		cat.release()
		if err != nil {
			return nil, err
		}
		if ls.Mode <= lockRowShare {
			continue
		}
		if err := s.lockTable(ctx, link.Key{NS: ti.Namespace, Name: ti.Name}); err != nil {
			return nil, err
		}
	}
	return &Cursor{tag: "LOCK TABLE", sess: s}, nil
}
