package rest

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
)

// writtenByLoam says Loam's link commits ns.name, by the rule the link
// and the engine use (meta.ExternalWriter): its settings name no writer or
// "loam", or it has no settings row but Loam created it. A table with
// writer "external", or without settings that another engine created, is
// written from outside.
func (s *Server) writtenByLoam(r *http.Request, ns, name string, props map[string]string) (bool, error) {
	ts, err := s.st.TableSettings(ctx(r), ns, name)
	external, err := meta.ExternalWriter(ts, err, props)
	return !external && err == nil, err
}

// refuseLoamWritten is the one-writer rule: the link plans its commits on
// the snapshots it made, so an outside change to its table would be lost
// or corrupt it. md is the table's current metadata.
func (s *Server) refuseLoamWritten(r *http.Request, ns, name string, md table.Metadata, what string) error {
	loam, err := s.writtenByLoam(r, ns, name, md.Properties())
	if err != nil {
		return err
	}
	if loam {
		return commitFailed("table %s.%s is written by Loam: outside commits are refused (one writer per table); "+
			"it cannot be %s through the REST catalog. Create the table WITH (writer = 'external') to commit to it from other engines", ns, name, what)
	}
	return nil
}

// tableChange is the spec's CommitTableRequest (the identifier is optional
// on the table's own route, required in a transaction).
type tableChange struct {
	Identifier   *identifier        `json:"identifier"`
	Requirements table.Requirements `json:"requirements"`
	Updates      table.Updates      `json:"updates"`
}

// staged is a commit checked and written, waiting for its pointer swap.
type staged struct {
	ns, name string
	old, new string
	md       table.Metadata
}

// stage checks a change's requirements against the table's current
// metadata, applies its updates and writes the new metadata file. A
// failed requirement is a 409 CommitFailedException; an update that does
// not apply a 400. An empty change stages nothing new (new == old).
func (s *Server) stage(r *http.Request, ns, name string, c tableChange) (*staged, error) {
	old, err := s.st.TablePointer(ctx(r), ns, name)
	if err != nil {
		return nil, storeError(err, typeNoSuchTable)
	}
	base, err := s.metadata(ctx(r), old)
	if err != nil {
		return nil, err
	}
	if err := s.refuseLoamWritten(r, ns, name, base, "committed to"); err != nil {
		return nil, err
	}
	for _, req := range c.Requirements {
		if err := req.Validate(base); err != nil {
			return nil, commitFailed("table %s.%s: %v", ns, name, err)
		}
	}
	if len(c.Updates) == 0 {
		return &staged{ns: ns, name: name, old: old, new: old, md: base}, nil
	}
	md, err := table.UpdateTableMetadata(base, c.Updates, old)
	if err != nil {
		return nil, badRequest("table %s.%s: %v", ns, name, err)
	}
	loc, err := s.writeMetadata(ctx(r), md, old)
	if err != nil {
		return nil, err
	}
	return &staged{ns: ns, name: name, old: old, new: loc, md: md}, nil
}

// commitTable is POST …/tables/{table}: requirements checked, updates
// applied, the new metadata written and the pointer swapped by
// compare-and-swap (409 when another commit moved it meanwhile).
func (s *Server) commitTable(w http.ResponseWriter, r *http.Request) error {
	ns, name, err := pathTable(r)
	if err != nil {
		return err
	}
	var c tableChange
	if err := decode(r, &c); err != nil {
		return err
	}
	if c.Identifier != nil && (len(c.Identifier.Namespace) != 1 || c.Identifier.Namespace[0] != ns || c.Identifier.Name != name) {
		return badRequest("the identifier in the body names another table than the path")
	}
	if asksCreate(c) {
		if _, err := s.st.TablePointer(ctx(r), ns, name); errors.Is(err, meta.ErrNotFound) {
			md, loc, err := s.createByCommit(r, ns, name, c)
			if err != nil {
				return err
			}
			return writeJSON(w, http.StatusOK, map[string]any{"metadata-location": loc, "metadata": md})
		}
	}
	if err := s.requireTable(r, ns, name, false, commitPrivileges(c.Updates)...); err != nil {
		return err
	}
	st, err := s.stage(r, ns, name, c)
	if err != nil {
		return err
	}
	if st.new != st.old {
		if err := s.st.SwapTablePointer(ctx(r), ns, name, st.old, st.new); err != nil {
			return swapError(err, fmt.Sprintf("table %s.%s", ns, name))
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"metadata-location": st.new, "metadata": st.md})
}

// swapError maps a lost pointer swap of what (a table, or a transaction's
// tables) to a 409 the client retries on fresh metadata.
func swapError(err error, what string) error {
	switch {
	case errors.Is(err, meta.ErrConflict):
		return &apiError{Code: http.StatusConflict, Type: typeCommitFailed,
			Message: fmt.Sprintf("%s changed while committing; retry on the new metadata: %v", what, err), cause: err}
	case errors.Is(err, meta.ErrNotFound):
		return storeError(err, typeNoSuchTable)
	}
	return err
}

// commitTransaction is POST /v1/transactions/commit: every table's change
// is staged (each requirement checked), then all pointers swap in one
// metastore transaction, so all commit or none does.
func (s *Server) commitTransaction(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		TableChanges []tableChange `json:"table-changes"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if len(req.TableChanges) == 0 {
		return badRequest("a transaction needs table-changes")
	}
	seen := map[[2]string]bool{}
	var swaps []meta.PointerSwap
	for _, c := range req.TableChanges {
		if c.Identifier == nil {
			return badRequest("every table change of a transaction needs its identifier")
		}
		ns, err := oneLevel(c.Identifier.Namespace)
		if err != nil {
			return err
		}
		k := [2]string{ns, c.Identifier.Name}
		if seen[k] {
			return badRequest("table %s.%s is changed twice in one transaction", ns, c.Identifier.Name)
		}
		seen[k] = true
		if err := s.requireTable(r, ns, c.Identifier.Name, false, commitPrivileges(c.Updates)...); err != nil {
			return err
		}
		st, err := s.stage(r, ns, c.Identifier.Name, c)
		if err != nil {
			return err
		}
		if st.new != st.old {
			swaps = append(swaps, meta.PointerSwap{Namespace: ns, Name: st.name, Old: st.old, New: st.new})
		}
	}
	if len(swaps) > 0 {
		if err := s.st.SwapTablePointers(ctx(r), swaps); err != nil {
			return swapError(err, "a table of the transaction")
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
