package rest

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// stageCreate answers a stage-create: the metadata a new table would
// start with, written nowhere. The table exists once a commit with an
// assert-create requirement makes it.
func (s *Server) stageCreate(w http.ResponseWriter, r *http.Request, ns, name, loc string, nsProps map[string]string, sc *iceberg.Schema,
	spec *iceberg.UnboundPartitionSpec, order *table.UnboundSortOrder, props map[string]string) error {
	if _, err := s.st.TablePointer(ctx(r), ns, name); err == nil {
		return errorf(http.StatusConflict, typeAlreadyExists, "table %s.%s exists", ns, name)
	}
	if loc == "" {
		var err error
		switch {
		case nsProps["location"] != "":
			loc, err = url.JoinPath(nsProps["location"], name)
		case s.opts.Warehouse != "":
			loc, err = url.JoinPath(s.opts.Warehouse, ns+".db", name)
		default:
			return badRequest("table %s.%s: no location given and no warehouse to place it in", ns, name)
		}
		if err != nil {
			return badRequest("table %s.%s location: %v", ns, name, err)
		}
	}
	ps := iceberg.UnpartitionedSpec
	if spec != nil {
		ps = &spec.PartitionSpec
	}
	so := table.UnsortedSortOrder
	if order != nil {
		so = order.SortOrder
	}
	md, err := table.NewMetadata(sc, ps, so, loc, props)
	if err != nil {
		return badRequest("table %s.%s: %v", ns, name, err)
	}
	return writeJSON(w, http.StatusOK, s.loadResult("", md))
}

// asksCreate says a change asserts that its table does not exist yet.
func asksCreate(c tableChange) bool {
	return slices.ContainsFunc(c.Requirements, func(q table.Requirement) bool { return q.GetType() == "assert-create" })
}

// createByCommit makes the table of a staged create: the Iceberg catalog
// applies the updates to empty metadata and inserts the table's row (a
// create that loses to another is a 409), then the table is marked
// external as a plain create's is.
func (s *Server) createByCommit(r *http.Request, ns, name string, c tableChange) (table.Metadata, string, error) {
	if _, err := s.st.NamespaceProperties(ctx(r), ns); err != nil {
		return nil, "", storeError(err, typeNoSuchNamespace)
	}
	if err := s.require(r, schemaObject(ns), "CREATE"); err != nil {
		return nil, "", err
	}
	md, loc, err := s.st.Catalog().CommitTable(ctx(r), table.Identifier{ns, name}, c.Requirements, c.Updates)
	switch {
	case errors.Is(err, catalog.ErrNoSuchNamespace):
		return nil, "", catalogError(err)
	case errors.Is(err, catalog.ErrTableAlreadyExists), errors.Is(err, table.ErrCommitFailed):
		return nil, "", commitFailed("create table %s.%s: %v", ns, name, err)
	case err != nil:
		return nil, "", badRequest("create table %s.%s: %v", ns, name, err)
	}
	if err := s.st.PutTableSettings(ctx(r), ns, name, meta.TableSettings{Writer: meta.WriterExternal}); err != nil {
		return nil, "", err
	}
	if err := s.created(r, tableObject(ns, name)); err != nil {
		return nil, "", err
	}
	return md, loc, nil
}
