package meta

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PointerSwap is one table's compare-and-swap in SwapTablePointers.
type PointerSwap struct {
	Namespace, Name string
	Old, New        string
}

// SwapTablePointers does every swap or none, in one transaction: the REST
// catalog's multi-table commit (POST /v1/transactions/commit) promises all
// its tables move together. When one pointer moved it returns ErrConflict
// (ErrNotFound when a table is gone) and no pointer changes. A table named
// twice is refused, since its second swap could only lose.
func (s *sqlStore) SwapTablePointers(ctx context.Context, swaps []PointerSwap) error {
	seen := make(map[[2]string]bool, len(swaps))
	for _, sw := range swaps {
		k := [2]string{sw.Namespace, sw.Name}
		if seen[k] {
			return fmt.Errorf("meta: swap table pointers: %s.%s named twice", sw.Namespace, sw.Name)
		}
		seen[k] = true
	}
	// lost names the swap that failed, told apart after the rollback.
	var lost *PointerSwap
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for i := range swaps {
			sw := &swaps[i]
			res, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?
				WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ? AND `+isTable),
				sw.New, sw.Old, CatalogName, nsKey(sw.Namespace), sw.Name, sw.Old)
			if err != nil {
				return fmt.Errorf("swap table %s.%s pointer: %w", sw.Namespace, sw.Name, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("swap table %s.%s pointer: %w", sw.Namespace, sw.Name, err)
			}
			if n != 1 {
				lost = sw
				return ErrConflict
			}
		}
		return nil
	})
	if err == nil {
		return nil
	}
	if lost == nil || !errors.Is(err, ErrConflict) {
		return fmt.Errorf("meta: swap table pointers: %w", err)
	}
	cur, perr := s.TablePointer(ctx, lost.Namespace, lost.Name)
	if perr != nil {
		return perr
	}
	return fmt.Errorf("meta: swap table %s.%s pointer from %s: %w (now %s); no table moved",
		lost.Namespace, lost.Name, lost.Old, ErrConflict, cur)
}
