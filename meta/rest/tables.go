package rest

import (
	"errors"
	"maps"
	"net/http"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// identifier is the spec's TableIdentifier.
type identifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// catalogError maps the Iceberg catalog's errors (which the Store's
// Catalog returns) to the error model.
func catalogError(err error) *apiError {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, catalog.ErrNoSuchTable):
		return &apiError{Code: http.StatusNotFound, Type: typeNoSuchTable, Message: err.Error(), cause: err}
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		return &apiError{Code: http.StatusNotFound, Type: typeNoSuchNamespace, Message: err.Error(), cause: err}
	case errors.Is(err, catalog.ErrTableAlreadyExists), errors.Is(err, catalog.ErrViewAlreadyExists):
		return &apiError{Code: http.StatusConflict, Type: typeAlreadyExists, Message: err.Error(), cause: err}
	}
	return storeError(err, typeNoSuchTable)
}

func (s *Server) listTables(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	if err := s.requireUsage(r, ns); err != nil {
		return err
	}
	names, err := s.st.ListTables(ctx(r), ns)
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

// loadResult is the spec's LoadTableResult; config carries what a reader
// needs to reach the files (TableConfig).
func (s *Server) loadResult(loc string, md table.Metadata) map[string]any {
	cfg := map[string]string{}
	maps.Copy(cfg, s.opts.TableConfig)
	return map[string]any{"metadata-location": loc, "metadata": md, "config": cfg}
}

// loadTable answers with the current metadata, tagged with an ETag of its
// location; a client holding that tag gets 304.
func (s *Server) loadTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathTable(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, ns, name, false, "SELECT"); err != nil {
		return err
	}
	loc, err := s.st.TablePointer(ctx(r), ns, name)
	if err != nil {
		return storeError(err, typeNoSuchTable)
	}
	tag := etag(loc)
	w.Header().Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && matchesETag(inm, tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	md, err := s.metadata(ctx(r), loc)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.loadResult(loc, md))
}

func (s *Server) tableExists(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathTable(r)
	if err != nil {
		return err
	}
	if err := s.requireVisible(r, ns, name, false); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func pathTable(r *http.Request) (ns, name string, err error) {
	if ns, err = pathNamespace(r); err != nil {
		return "", "", err
	}
	return ns, r.PathValue("table"), nil
}

// createTable creates a table outside engines write: its settings say
// writer external, so Loam reads it and the REST catalog takes its
// commits. A staged create (stage-create, Spark's CREATE TABLE AS) only
// answers the metadata the table would start with; the commit that
// asserts its creation makes it (createByCommit).
func (s *Server) createTable(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	var req struct {
		Name          string                        `json:"name"`
		Location      string                        `json:"location"`
		Schema        *iceberg.Schema               `json:"schema"`
		PartitionSpec *iceberg.UnboundPartitionSpec `json:"partition-spec"`
		WriteOrder    *table.UnboundSortOrder       `json:"write-order"`
		StageCreate   bool                          `json:"stage-create"`
		Properties    map[string]string             `json:"properties"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Name == "" || req.Schema == nil {
		return badRequest("create table needs a name and a schema")
	}
	nsProps, err := s.st.NamespaceProperties(ctx(r), ns)
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.require(r, schemaObject(ns), "CREATE"); err != nil {
		return err
	}
	if _, err := s.st.View(ctx(r), ns, req.Name); err == nil {
		return errorf(http.StatusConflict, typeAlreadyExists, "a view %s.%s exists", ns, req.Name)
	}
	if req.StageCreate {
		return s.stageCreate(w, r, ns, req.Name, req.Location, nsProps, req.Schema, req.PartitionSpec, req.WriteOrder, req.Properties)
	}
	var opts []catalog.CreateTableOpt
	if req.Location != "" {
		opts = append(opts, catalog.WithLocation(req.Location))
	}
	if req.PartitionSpec != nil {
		opts = append(opts, catalog.WithPartitionSpec(&req.PartitionSpec.PartitionSpec))
	}
	if req.WriteOrder != nil {
		opts = append(opts, catalog.WithSortOrder(req.WriteOrder.SortOrder))
	}
	if len(req.Properties) > 0 {
		opts = append(opts, catalog.WithProperties(req.Properties))
	}
	t, err := s.st.Catalog().CreateTable(ctx(r), table.Identifier{ns, req.Name}, req.Schema, opts...)
	if err != nil {
		if errors.Is(err, catalog.ErrTableAlreadyExists) || errors.Is(err, catalog.ErrNoSuchNamespace) {
			return catalogError(err)
		}
		return badRequest("create table %s.%s: %v", ns, req.Name, err)
	}
	// After the create, never before: a create that loses to an existing
	// table must not rewrite that table's settings.
	if err := s.st.PutTableSettings(ctx(r), ns, req.Name, meta.TableSettings{Writer: meta.WriterExternal}); err != nil {
		return err
	}
	if err := s.created(r, tableObject(ns, req.Name)); err != nil {
		return err
	}
	w.Header().Set("ETag", etag(t.MetadataLocation()))
	return writeJSON(w, http.StatusOK, s.loadResult(t.MetadataLocation(), t.Metadata()))
}

// dropTable drops an external table (and its files when purgeRequested);
// a table Loam writes is dropped with DROP TABLE through Loam, which also
// clears its write log and lease.
func (s *Server) dropTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathTable(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, ns, name, false, meta.OwnerPrivilege); err != nil {
		return err
	}
	if err := s.refuseByPointer(r, ns, name, "dropped"); err != nil {
		return err
	}
	id := table.Identifier{ns, name}
	if r.URL.Query().Get("purgeRequested") == "true" {
		err = s.st.Catalog().PurgeTable(ctx(r), id)
	} else {
		err = s.st.Catalog().DropTable(ctx(r), id)
	}
	if err != nil {
		return catalogError(err)
	}
	if err := s.st.DeleteTableSettings(ctx(r), ns, name); err != nil {
		return err
	}
	if err := s.forgotten(r, tableObject(ns, name)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// renameTable renames an external table, its settings with it.
func (s *Server) renameTable(w http.ResponseWriter, r *http.Request) error {
	from, to, req, err := decodeRename(r)
	if err != nil {
		return err
	}
	if err := s.requireTable(r, from, req.Source.Name, false, meta.OwnerPrivilege); err != nil {
		return err
	}
	if err := s.refuseByPointer(r, from, req.Source.Name, "renamed"); err != nil {
		return err
	}
	if err := s.requireMove(r, from, to); err != nil {
		return err
	}
	if _, err := s.st.View(ctx(r), to, req.Destination.Name); err == nil {
		return errorf(http.StatusConflict, typeAlreadyExists, "a view %s.%s exists", to, req.Destination.Name)
	}
	settings, serr := s.st.TableSettings(ctx(r), from, req.Source.Name)
	if _, err := s.st.Catalog().RenameTable(ctx(r), table.Identifier{from, req.Source.Name},
		table.Identifier{to, req.Destination.Name}); err != nil {
		return catalogError(err)
	}
	if serr == nil {
		if err := s.st.PutTableSettings(ctx(r), to, req.Destination.Name, settings); err != nil {
			return err
		}
		if err := s.st.DeleteTableSettings(ctx(r), from, req.Source.Name); err != nil {
			return err
		}
	}
	if err := s.moved(r, tableObject(from, req.Source.Name), tableObject(to, req.Destination.Name)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// refuseByPointer is refuseLoamWritten for a table not yet loaded: 404
// when there is none.
func (s *Server) refuseByPointer(r *http.Request, ns, name, what string) error {
	loc, err := s.st.TablePointer(ctx(r), ns, name)
	if err != nil {
		return storeError(err, typeNoSuchTable)
	}
	md, err := s.metadata(ctx(r), loc)
	if err != nil {
		return err
	}
	return s.refuseLoamWritten(r, ns, name, md, what)
}

// renameRequest is the body of POST /v1/tables/rename and /v1/views/rename.
type renameRequest struct {
	Source      identifier `json:"source"`
	Destination identifier `json:"destination"`
}

// decodeRename reads a rename request, with the one-level namespaces of
// its source and destination.
func decodeRename(r *http.Request) (from, to string, req renameRequest, err error) {
	if err = decode(r, &req); err != nil {
		return
	}
	if from, err = oneLevel(req.Source.Namespace); err != nil {
		return
	}
	if to, err = oneLevel(req.Destination.Namespace); err != nil {
		return
	}
	if req.Source.Name == "" || req.Destination.Name == "" {
		err = badRequest("rename needs a source and a destination name")
	}
	return
}
