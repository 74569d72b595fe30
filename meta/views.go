package meta

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
	"github.com/google/uuid"
)

// ViewDialect is the dialect of the SQL representation Loam writes in a
// view's Iceberg metadata.
const ViewDialect = "postgresql"

// View is a view as the store keeps it: an Iceberg view (a row of
// iceberg_tables with iceberg_type 'VIEW' pointing at a view metadata
// file), whose current version holds the SELECT text in dialect
// "postgresql" and whose schema is the view's columns.
type View struct {
	SQL        string
	Schema     *iceberg.Schema
	Properties map[string]string
	// MetadataLocation is the metadata file read (set by the Store).
	MetadataLocation string
}

// isView matches the rows of views in iceberg_tables.
const isView = "iceberg_type = 'VIEW'"

// viewCache keeps parsed view metadata by file location: a file is never
// rewritten, so a pointer read is all a lookup costs once loaded.
type viewCache struct {
	m sync.Map // metadata location → view.Metadata
}

func (s *sqlStore) viewPointer(ctx context.Context, ns, name string) (string, error) {
	var loc sql.NullString
	err := s.queryRow(ctx, `SELECT metadata_location FROM iceberg_tables
		WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND `+isView,
		CatalogName, nsKey(ns), name).Scan(&loc)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !loc.Valid {
		return "", fmt.Errorf("meta: view %s.%s: %w", ns, name, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s pointer: %w", ns, name, err)
	}
	return loc.String, nil
}

func (s *sqlStore) loadViewMetadata(ctx context.Context, loc string) (view.Metadata, error) {
	if md, ok := s.views.m.Load(loc); ok {
		return md.(view.Metadata), nil
	}
	v, err := view.NewFromLocation(ctx, nil, loc, icebergio.LoadFSFunc(s.ioProps, loc))
	if err != nil {
		return nil, fmt.Errorf("meta: load view metadata %s: %w", loc, err)
	}
	s.views.m.Store(loc, v.Metadata())
	return v.Metadata(), nil
}

// View is the current version of view ns.name; ErrNotFound when there is
// none. A view another engine made without a postgresql representation
// is returned with its first representation's text.
func (s *sqlStore) View(ctx context.Context, ns, name string) (View, error) {
	loc, err := s.viewPointer(ctx, ns, name)
	if err != nil {
		return View{}, err
	}
	md, err := s.loadViewMetadata(ctx, loc)
	if err != nil {
		return View{}, err
	}
	v := View{Schema: md.CurrentSchema(), Properties: md.Properties(), MetadataLocation: loc}
	cur := md.CurrentVersion()
	if cur == nil || len(cur.Representations) == 0 {
		return View{}, fmt.Errorf("meta: view %s.%s: metadata %s has no SQL representation", ns, name, loc)
	}
	v.SQL = cur.Representations[0].Sql
	for _, r := range cur.Representations {
		if r.Dialect == ViewDialect {
			v.SQL = r.Sql
		}
	}
	return v, nil
}

// writeViewMetadata builds the metadata of a new current version of a
// view (on base, nil for a new view) and writes it to a new file.
func (s *sqlStore) writeViewMetadata(ctx context.Context, ns, name string, base view.Metadata, v View) (string, error) {
	var (
		b   *view.MetadataBuilder
		err error
		id  int64 = 1
		loc string
	)
	if base == nil {
		loc, err = url.JoinPath(s.warehouse, ns+".db", name)
		if err != nil {
			return "", fmt.Errorf("meta: view %s.%s location: %w", ns, name, err)
		}
		b, err = view.NewMetadataBuilder()
		if err == nil {
			b.SetLoc(loc)
		}
	} else {
		loc = base.Location()
		id = base.CurrentVersionID() + 1
		b, err = view.MetadataBuilderFromBase(base)
	}
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s metadata: %w", ns, name, err)
	}
	ver, err := view.NewVersion(id, v.Schema.ID, view.Representations{view.NewRepresentation(v.SQL, ViewDialect)}, table.Identifier{ns},
		view.WithDefaultViewCatalog(CatalogName), view.WithVersionSummary(view.VersionSummary{"engine-name": "loam"}))
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s version: %w", ns, name, err)
	}
	md, err := b.SetCurrentVersion(ver, v.Schema).SetProperties(v.Properties).Build()
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s metadata: %w", ns, name, err)
	}
	data, err := json.Marshal(md)
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s metadata: %w", ns, name, err)
	}
	file, err := url.JoinPath(loc, "metadata", "view-"+uuid.New().String()+".metadata.json")
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s metadata location: %w", ns, name, err)
	}
	fsys, err := icebergio.LoadFS(ctx, s.ioProps, file)
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s: %w", ns, name, err)
	}
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return "", fmt.Errorf("meta: view %s.%s: warehouse %s is not writable", ns, name, s.warehouse)
	}
	out, err := wfs.Create(file)
	if err != nil {
		return "", fmt.Errorf("meta: view %s.%s: write %s: %w", ns, name, file, err)
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return "", fmt.Errorf("meta: view %s.%s: write %s: %w", ns, name, file, err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("meta: view %s.%s: write %s: %w", ns, name, file, err)
	}
	return file, nil
}

// CreateView adds view ns.name; ErrExists when a table or view holds the
// name, ErrNotFound when the namespace does not exist.
func (s *sqlStore) CreateView(ctx context.Context, ns, name string, v View) error {
	ok, err := s.cat.CheckNamespaceExists(ctx, nsIdent(ns))
	if err != nil {
		return catalogErr(fmt.Sprintf("create view %s.%s", ns, name), err)
	}
	if !ok {
		return fmt.Errorf("meta: create view %s.%s: namespace: %w", ns, name, ErrNotFound)
	}
	var exists int
	err = s.queryRow(ctx, `SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`,
		CatalogName, nsKey(ns), name).Scan(&exists)
	if err == nil {
		return fmt.Errorf("meta: create view %s.%s: %w", ns, name, ErrExists)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("meta: create view %s.%s: %w", ns, name, err)
	}
	file, err := s.writeViewMetadata(ctx, ns, name, nil, v)
	if err != nil {
		return err
	}
	// The primary key refuses a name a table or view took meanwhile.
	_, err = s.exec(ctx, `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, iceberg_type, metadata_location)
		VALUES (?, ?, ?, 'VIEW', ?)`, CatalogName, nsKey(ns), name, file)
	if err != nil {
		var one int
		if s.queryRow(ctx, `SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?`,
			CatalogName, nsKey(ns), name).Scan(&one) == nil {
			return fmt.Errorf("meta: create view %s.%s: %w", ns, name, ErrExists)
		}
		return fmt.Errorf("meta: create view %s.%s: %w", ns, name, err)
	}
	return nil
}

// ReplaceView makes v the current version of view ns.name, keeping its
// history in the Iceberg metadata; ErrNotFound when there is no such view,
// ErrConflict when another replace won the race.
func (s *sqlStore) ReplaceView(ctx context.Context, ns, name string, v View) error {
	old, err := s.viewPointer(ctx, ns, name)
	if err != nil {
		return err
	}
	base, err := s.loadViewMetadata(ctx, old)
	if err != nil {
		return err
	}
	file, err := s.writeViewMetadata(ctx, ns, name, base, v)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?
		WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = ? AND `+isView,
		file, old, CatalogName, nsKey(ns), name, old)
	if err != nil {
		return fmt.Errorf("meta: replace view %s.%s: %w", ns, name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("meta: replace view %s.%s: %w", ns, name, ErrConflict)
	}
	return nil
}

// DropView removes view ns.name (its metadata files stay, as for a
// table's); ErrNotFound when there is none.
func (s *sqlStore) DropView(ctx context.Context, ns, name string) error {
	res, err := s.exec(ctx, `DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND `+isView,
		CatalogName, nsKey(ns), name)
	if err != nil {
		return fmt.Errorf("meta: drop view %s.%s: %w", ns, name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("meta: drop view %s.%s: %w", ns, name, ErrNotFound)
	}
	return nil
}

// ListViews lists the views of ns, sorted.
func (s *sqlStore) ListViews(ctx context.Context, ns string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT table_name FROM iceberg_tables
		WHERE catalog_name = ? AND table_namespace = ? AND `+isView+` ORDER BY table_name`), CatalogName, nsKey(ns))
	if err != nil {
		return nil, fmt.Errorf("meta: list views of %q: %w", ns, err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("meta: list views of %q: %w", ns, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
