package rest

import (
	"errors"
	"fmt"
	"maps"
	"net/http"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/view"
	"github.com/loamdb/loam/meta"
)

// Views are the Store's Iceberg views (Loam's SQL views among them): the
// SQL text of the current version, dialect "postgresql" when Loam made
// it.

func pathView(r *http.Request) (ns, name string, err error) {
	if ns, err = pathNamespace(r); err != nil {
		return "", "", err
	}
	return ns, r.PathValue("view"), nil
}

func (s *Server) listViews(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	if err := s.requireUsage(r, ns); err != nil {
		return err
	}
	names, err := s.st.ListViews(ctx(r), ns)
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if names, err = s.visible(r, ns, names); err != nil {
		return err
	}
	ids := make([]identifier, 0, len(names))
	for _, n := range names {
		ids = append(ids, identifier{Namespace: []string{ns}, Name: n})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"identifiers": ids})
}

// viewMetadata reads the current metadata of view ns.name.
func (s *Server) viewMetadata(r *http.Request, ns, name string) (string, view.Metadata, error) {
	v, err := s.st.View(ctx(r), ns, name)
	if err != nil {
		return "", nil, storeError(err, typeNoSuchView)
	}
	loc := v.MetadataLocation
	vw, err := view.NewFromLocation(ctx(r), nil, loc, icebergio.LoadFSFunc(s.ioProps(nil), loc))
	if err != nil {
		return "", nil, fmt.Errorf("read view metadata %s: %w", loc, err)
	}
	return loc, vw.Metadata(), nil
}

func (s *Server) viewResult(loc string, md view.Metadata) map[string]any {
	cfg := map[string]string{}
	maps.Copy(cfg, s.opts.TableConfig)
	return map[string]any{"metadata-location": loc, "metadata": md, "config": cfg}
}

func (s *Server) loadView(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathView(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, ns, name, true, "SELECT"); err != nil {
		return err
	}
	loc, md, err := s.viewMetadata(r, ns, name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.viewResult(loc, md))
}

func (s *Server) viewExists(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathView(r)
	if err != nil {
		return err
	}
	if err := s.requireVisible(r, ns, name, true); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// viewSQL picks the text Loam runs: the postgresql representation, else
// the first.
func viewSQL(v *view.Version) (string, error) {
	if v == nil || len(v.Representations) == 0 {
		return "", errors.New("the view version has no SQL representation")
	}
	sql := v.Representations[0].Sql
	for _, rep := range v.Representations {
		if rep.Dialect == meta.ViewDialect {
			sql = rep.Sql
		}
	}
	return sql, nil
}

// createView stores the view's SQL and schema the way Loam keeps views;
// Loam runs the text as PostgreSQL's dialect, so another dialect's text
// may not run in Loam.
func (s *Server) createView(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	var req struct {
		Name        string            `json:"name"`
		Location    string            `json:"location"`
		Schema      *iceberg.Schema   `json:"schema"`
		ViewVersion *view.Version     `json:"view-version"`
		Properties  map[string]string `json:"properties"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Name == "" || req.Schema == nil {
		return badRequest("create view needs a name, a schema and a view-version")
	}
	sql, err := viewSQL(req.ViewVersion)
	if err != nil {
		return badRequest("create view %s.%s: %v", ns, req.Name, err)
	}
	if _, err := s.st.NamespaceProperties(ctx(r), ns); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.require(r, schemaObject(ns), "CREATE"); err != nil {
		return err
	}
	if err := s.st.CreateView(ctx(r), ns, req.Name, meta.View{SQL: sql, Schema: req.Schema, Properties: req.Properties}); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.created(r, tableObject(ns, req.Name)); err != nil {
		return err
	}
	loc, md, err := s.viewMetadata(r, ns, req.Name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.viewResult(loc, md))
}

// replaceView is POST …/views/{view}: requirements checked, updates
// applied, and the resulting current version stored as the view's new
// version (its SQL, schema and properties).
func (s *Server) replaceView(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathView(r)
	if err != nil {
		return err
	}
	var req struct {
		Requirements view.Requirements `json:"requirements"`
		Updates      view.Updates      `json:"updates"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.requireTable(r, ns, name, true, meta.OwnerPrivilege); err != nil {
		return err
	}
	_, base, err := s.viewMetadata(r, ns, name)
	if err != nil {
		return err
	}
	for _, q := range req.Requirements {
		if err := q.Validate(base); err != nil {
			return commitFailed("view %s.%s: %v", ns, name, err)
		}
	}
	b, err := view.MetadataBuilderFromBase(base)
	if err != nil {
		return err
	}
	for _, u := range req.Updates {
		if err := u.Apply(b); err != nil {
			return badRequest("view %s.%s: %v", ns, name, err)
		}
	}
	md, err := b.Build()
	if err != nil {
		return badRequest("view %s.%s: %v", ns, name, err)
	}
	sql, err := viewSQL(md.CurrentVersion())
	if err != nil {
		return badRequest("view %s.%s: %v", ns, name, err)
	}
	if err := s.st.ReplaceView(ctx(r), ns, name, meta.View{SQL: sql, Schema: md.CurrentSchema(), Properties: md.Properties()}); err != nil {
		if errors.Is(err, meta.ErrConflict) {
			return commitFailed("view %s.%s changed while committing: %v", ns, name, err)
		}
		return storeError(err, typeNoSuchView)
	}
	loc, md2, err := s.viewMetadata(r, ns, name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.viewResult(loc, md2))
}

func (s *Server) dropView(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathView(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, ns, name, true, meta.OwnerPrivilege); err != nil {
		return err
	}
	if err := s.st.DropView(ctx(r), ns, name); err != nil {
		return storeError(err, typeNoSuchView)
	}
	if err := s.forgotten(r, tableObject(ns, name)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// renameView recreates the view under its new name from its current
// version, then drops the old name (the Store has no rename of views; the
// new name's history starts over).
func (s *Server) renameView(w http.ResponseWriter, r *http.Request) error {
	from, to, req, err := decodeRename(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, from, req.Source.Name, true, meta.OwnerPrivilege); err != nil {
		return err
	}
	if err := s.requireMove(r, from, to); err != nil {
		return err
	}
	v, err := s.st.View(ctx(r), from, req.Source.Name)
	if err != nil {
		return storeError(err, typeNoSuchView)
	}
	if _, err := s.st.TablePointer(ctx(r), to, req.Destination.Name); err == nil {
		return errorf(http.StatusConflict, typeAlreadyExists, "a table %s.%s exists", to, req.Destination.Name)
	}
	if err := s.st.CreateView(ctx(r), to, req.Destination.Name, meta.View{SQL: v.SQL, Schema: v.Schema, Properties: v.Properties}); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.st.DropView(ctx(r), from, req.Source.Name); err != nil {
		return storeError(err, typeNoSuchView)
	}
	if err := s.moved(r, tableObject(from, req.Source.Name), tableObject(to, req.Destination.Name)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
