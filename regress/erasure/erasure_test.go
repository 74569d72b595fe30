// Package erasure checks, through the real binary, that DELETE followed by
// VACUUM leaves no byte of the deleted rows anywhere under the server's
// data directory (write log, metastore, warehouse): docs/upkeep.md,
// Erasure.
package erasure

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/regress/loamtest"
	"github.com/loamdb/loam/storage/maint/erasetest"
	"github.com/loamdb/loam/storage/s3test"
)

func TestDeleteThenVacuumErases(t *testing.T) {
	bin := loamtest.Binary(t)
	for _, c := range []struct{ name, with string }{
		{"v2", ""},
		{"v2 partitioned by tenant", " PARTITIONED BY (tenant)"},
		{"v3", " WITH (format_version = 3)"},
	} {
		t.Run(c.name, func(t *testing.T) { deleteThenVacuum(t, bin, c.with) })
	}
}

// deleteThenVacuum runs the test on a table created with with.
func deleteThenVacuum(t *testing.T, bin, with string) {
	dir := t.TempDir()
	// An hour between link commits: the tests' CHECKPOINTs decide what
	// reaches Iceberg, and rows left in the log stay there.
	args := []string{"--data-dir", dir, "--link-interval", "1h"}
	// On S3 the warehouse is a bucket this test names (the later flag
	// wins), so it can search every object in it.
	wh, _ := s3test.Warehouse(t, dir)
	if s3test.Enabled() {
		args = append(args, "--warehouse", wh, "--s3-endpoint", s3test.Shared(t).Endpoint)
	}
	holding := func(b []byte) ([]string, error) {
		got, err := erasetest.FilesHolding(dir, b)
		if bucket, _, ok := s3test.SplitS3(wh); ok && err == nil {
			var objs []string
			objs, err = erasetest.ObjectsHolding(context.Background(), s3test.Shared(t).Client(), bucket, b)
			got = append(got, objs...)
		}
		return got, err
	}
	srv := loamtest.StartWith(t, bin, loamtest.Options{Args: args})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	exec := func(sql string, args ...any) string {
		t.Helper()
		tag, err := c.Exec(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return tag.String()
	}
	raw := make([]byte, 16)
	rand.Read(raw)
	marker := hex.EncodeToString(raw)
	if _, err := c.Exec(ctx, "CREATE TABLE spans (tenant text, id int, note text)"+with); err != nil {
		if strings.Contains(err.Error(), "unrecognized parameter") {
			t.Skipf("this build has no%s: %v", with, err)
		}
		t.Fatal(err)
	}
	exec("CREATE TABLE other (id int)")
	insert := func(tenant string, ids ...int) {
		for _, id := range ids {
			// The erased tenant is named by the marker too: its
			// partition directory, partition values and bounds hold it.
			note := "kept " + tenant
			if tenant == "x" {
				tenant, note = marker, marker
			}
			exec("INSERT INTO spans VALUES ($1, $2, $3)", tenant, id, note)
		}
	}
	// Files mixing tenants, a file of x alone, x's rows still in the log
	// when deleted; another table's rows in the same log segments.
	insert("a", 1, 2)
	insert("x", 3, 4)
	exec("CHECKPOINT")
	insert("x", 5)
	exec("INSERT INTO other VALUES (1)")
	exec("CHECKPOINT")
	insert("b", 6)
	insert("x", 7)
	if tag := exec("DELETE FROM spans WHERE tenant = $1", marker); tag != "DELETE 4" {
		t.Fatalf("DELETE: %s, want DELETE 4", tag)
	}
	insert("c", 8)
	exec("INSERT INTO other VALUES (2)")
	if got, err := holding([]byte(marker)); err != nil || !has(got, ".parquet") || !has(got, ".seg") {
		t.Fatalf("before VACUUM the marker is in %v (%v): the search does not see data files and the write log", got, err)
	}
	if tag := exec("VACUUM spans"); tag != "VACUUM" {
		t.Fatalf("VACUUM: %s", tag)
	}
	for _, b := range []string{marker, marker[:12]} {
		got, err := holding([]byte(b))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			t.Errorf("after DELETE and VACUUM %q is still in %v", b, got)
		}
	}
	rows, err := c.Query(ctx, "SELECT tenant || '/' || id FROM spans ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/1", "a/2", "b/6", "c/8"}; !slices.Equal(got, want) {
		t.Errorf("rows after VACUUM %v, want %v", got, want)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM other").Scan(&n); err != nil || n != 2 {
		t.Errorf("the other table holds %d rows (%v), want 2", n, err)
	}
}

func has(paths []string, suffix string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return strings.HasSuffix(p, suffix) })
}
