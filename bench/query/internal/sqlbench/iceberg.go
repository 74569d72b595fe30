package sqlbench

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	_ "modernc.org/sqlite" // Loam's metastore
)

// DataFiles lists the Parquet files of the current snapshot of Loam's
// table public.<name>, read as an outside engine would: iceberg-go's SQL
// catalog over Loam's SQLite metastore and its scan planning. A glob of
// the table's data directory would also take files a CHECKPOINT or a
// compaction has replaced. A file with deletes is refused: DuckDB's
// read_parquet would not apply them.
func DataFiles(ctx context.Context, dataDir, name string) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "meta.db")+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, iceberg.Properties{"warehouse": "file://" + filepath.Join(dataDir, "warehouse")})
	if err != nil {
		return nil, err
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", name})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", name, err)
	}
	var files []string
	seen := map[string]bool{}
	for _, t := range tasks {
		if len(t.DeleteFiles) > 0 {
			return nil, fmt.Errorf("%s: %s has deletes, which read_parquet would not apply", name, t.File.FilePath())
		}
		// A large file is planned as several byte ranges; DuckDB reads
		// a file whole.
		if path := strings.TrimPrefix(t.File.FilePath(), "file://"); !seen[path] {
			seen[path] = true
			files = append(files, path)
		}
	}
	return files, nil
}
