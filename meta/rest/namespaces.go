package rest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/loamdb/loam/meta"
)

// nsSeparator joins the levels of a namespace in a path (the spec's
// default, %1F unescaped).
const nsSeparator = "\x1f"

// pathNamespace is the namespace of the request path; Loam's are one level
// deep, so a nested one does not exist.
func pathNamespace(r *http.Request) (string, error) {
	ns := r.PathValue("namespace")
	if ns == "" || strings.Contains(ns, nsSeparator) {
		return "", errorf(http.StatusNotFound, typeNoSuchNamespace, "namespace %q does not exist (Loam's namespaces are one level deep)",
			strings.ReplaceAll(ns, nsSeparator, "."))
	}
	return ns, nil
}

// oneLevel checks a namespace given in a request body.
func oneLevel(ns []string) (string, error) {
	if len(ns) != 1 || ns[0] == "" {
		return "", badRequest("namespace %q: Loam's namespaces are one level deep", strings.Join(ns, "."))
	}
	return ns[0], nil
}

// listNamespaces: every namespace at the top; under a parent none, since
// namespaces are one level deep (404 when the parent does not exist).
func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request) error {
	out := [][]string{}
	if parent := r.URL.Query().Get("parent"); parent != "" {
		if strings.Contains(parent, nsSeparator) {
			return errorf(http.StatusNotFound, typeNoSuchNamespace, "namespace %q does not exist", parent)
		}
		if _, err := s.st.NamespaceProperties(ctx(r), parent); err != nil {
			return storeError(err, typeNoSuchNamespace)
		}
		return writeJSON(w, http.StatusOK, map[string]any{"namespaces": out})
	}
	names, err := s.st.ListNamespaces(ctx(r))
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	for _, n := range names {
		out = append(out, []string{n})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"namespaces": out})
}

func (s *Server) createNamespace(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Namespace  []string          `json:"namespace"`
		Properties map[string]string `json:"properties"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	ns, err := oneLevel(req.Namespace)
	if err != nil {
		return err
	}
	if err := s.requireCreateNamespace(r); err != nil {
		return err
	}
	if err := s.st.CreateNamespace(ctx(r), ns, req.Properties); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.created(r, schemaObject(ns)); err != nil {
		return err
	}
	props, err := s.st.NamespaceProperties(ctx(r), ns)
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"namespace": []string{ns}, "properties": props})
}

func (s *Server) loadNamespace(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	props, err := s.st.NamespaceProperties(ctx(r), ns)
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"namespace": []string{ns}, "properties": props})
}

func (s *Server) namespaceExists(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	if _, err := s.st.NamespaceProperties(ctx(r), ns); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// dropNamespace: 409 while it holds tables or views.
func (s *Server) dropNamespace(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	if _, err := s.st.NamespaceProperties(ctx(r), ns); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.require(r, schemaObject(ns), meta.OwnerPrivilege); err != nil {
		return err
	}
	if views, err := s.st.ListViews(ctx(r), ns); err == nil && len(views) > 0 {
		return errorf(http.StatusConflict, typeNotEmpty, "namespace %q is not empty: it holds views", ns)
	}
	if err := s.st.DropNamespace(ctx(r), ns); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.forgotten(r, schemaObject(ns)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) updateNamespaceProperties(w http.ResponseWriter, r *http.Request) error {
	ns, err := pathNamespace(r)
	if err != nil {
		return err
	}
	var req struct {
		Removals []string          `json:"removals"`
		Updates  map[string]string `json:"updates"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	for _, k := range req.Removals {
		if _, ok := req.Updates[k]; ok {
			return errorf(http.StatusUnprocessableEntity, "UnprocessableEntityException", "property %q is both set and removed", k)
		}
	}
	before, err := s.st.NamespaceProperties(ctx(r), ns)
	if err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if err := s.require(r, schemaObject(ns), meta.OwnerPrivilege); err != nil {
		return err
	}
	if err := s.st.SetNamespaceProperties(ctx(r), ns, req.Updates, req.Removals); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	updated, removed, missing := []string{}, []string{}, []string{}
	for k := range req.Updates {
		updated = append(updated, k)
	}
	for _, k := range req.Removals {
		if _, ok := before[k]; ok {
			removed = append(removed, k)
		} else {
			missing = append(missing, k)
		}
	}
	slices.Sort(updated)
	return writeJSON(w, http.StatusOK, map[string]any{"updated": updated, "removed": removed, "missing": missing})
}
