package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// A view records, in its Iceberg view properties, the tables and views its
// SELECT reads (found while CREATE VIEW plans it) and when it was created,
// so that DROP refuses to leave it dangling, or drops it too under
// CASCADE, as PostgreSQL's pg_depend does. A view created before Loam
// recorded them has none.
const (
	propViewReads   = "loam.view.reads"   // JSON [[ns, name], ...]
	propViewCreated = "loam.view.created" // Unix nanoseconds, kept by CREATE OR REPLACE
)

// readsRecorder is the catalog CREATE VIEW plans its SELECT with: it
// notes each table or view the SELECT names (not those the views it reads
// name, which plan through the plain catalog: the embedded one's
// ViewCatalog).
type readsRecorder struct {
	*catalog
	reads []link.Key
}

func (r *readsRecorder) Table(ctx context.Context, schema, name string) (*plan.TableInfo, error) {
	ti, err := r.catalog.Table(ctx, schema, name)
	if err == nil && ti != nil {
		k := link.Key{NS: ti.Namespace, Name: ti.Name}
		if !slices.Contains(r.reads, k) {
			r.reads = append(r.reads, k)
		}
	}
	return ti, err
}

func encodeReads(reads []link.Key) string {
	pairs := make([][2]string, len(reads))
	for i, k := range reads {
		pairs[i] = [2]string{k.NS, k.Name}
	}
	b, _ := json.Marshal(pairs)
	return string(b)
}

// depView is a view with what it reads.
type depView struct {
	key     link.Key
	reads   []link.Key
	created int64
}

// allViews lists every view of every schema with its recorded reads.
func (s *Session) allViews(ctx context.Context) ([]depView, error) {
	nss, err := s.eng.meta.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	var out []depView
	for _, ns := range nss {
		names, err := s.eng.meta.ListViews(ctx, ns)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if s.hidden(link.Key{NS: ns, Name: n}) {
				continue // dropped by the open transaction
			}
			v, err := s.eng.meta.View(ctx, ns, n)
			if errors.Is(err, meta.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			dv := depView{key: link.Key{NS: ns, Name: n}}
			if text := v.Properties[propViewReads]; text != "" {
				var pairs [][2]string
				if err := json.Unmarshal([]byte(text), &pairs); err != nil {
					return nil, fmt.Errorf("view %s.%s: %s: %w", ns, n, propViewReads, err)
				}
				for _, p := range pairs {
					dv.reads = append(dv.reads, link.Key{NS: p[0], Name: p[1]})
				}
			}
			dv.created, _ = strconv.ParseInt(v.Properties[propViewCreated], 10, 64)
			out = append(out, dv)
		}
	}
	return out, nil
}

// dropObj is a table or view a DROP removes.
type dropObj struct {
	key    link.Key
	isView bool
}

// dependent is a view a DROP reaches, and the object it reaches it by
// (on is nil for a target of the DROP itself).
type dependent struct {
	obj dropObj
	on  *dropObj
}

// dependents lists targets and the views that read them, directly or
// through other views, in the order PostgreSQL reports them: its deletion
// order (a depth-first walk from each target in turn, dependents before
// what they depend on, newest dependents first) reversed.
func (s *Session) dependents(ctx context.Context, targets []dropObj) ([]dependent, error) {
	views, err := s.allViews(ctx)
	if err != nil {
		return nil, err
	}
	isTarget := map[link.Key]bool{}
	for _, t := range targets {
		isTarget[t.key] = true
	}
	seen := map[link.Key]bool{}
	var order []dependent // deletion order
	var visit func(o dropObj, on *dropObj)
	visit = func(o dropObj, on *dropObj) {
		if seen[o.key] {
			return
		}
		seen[o.key] = true
		var readers []depView
		for _, v := range views {
			if slices.Contains(v.reads, o.key) {
				readers = append(readers, v)
			}
		}
		slices.SortStableFunc(readers, func(a, b depView) int {
			if a.created != b.created {
				if a.created > b.created {
					return -1
				}
				return 1
			}
			return strings.Compare(b.key.NS+"."+b.key.Name, a.key.NS+"."+a.key.Name)
		})
		for _, r := range readers {
			visit(dropObj{key: r.key, isView: true}, &o)
		}
		if isTarget[o.key] {
			on = nil
		}
		order = append(order, dependent{obj: o, on: on})
	}
	for _, t := range targets {
		visit(t, nil)
	}
	slices.Reverse(order)
	return order, nil
}

// objectDescription names a relation as PostgreSQL's getObjectDescription does:
// qualified unless the search path finds it unqualified.
func (s *Session) objectDescription(ctx context.Context, o dropObj) string {
	kind := "table"
	if o.isView {
		kind = "view"
	}
	cat := s.catalog()
	ti, err := cat.Table(ctx, "", o.key.Name)
	cat.release()
	if err == nil && ti != nil && ti.Namespace == o.key.NS {
		return kind + " " + o.key.Name
	}
	return kind + " " + o.key.NS + "." + o.key.Name
}

// maxReportedDeps is PostgreSQL's MAX_REPORTED_DEPS.
const maxReportedDeps = 100

// checkDependents refuses a DROP without CASCADE that would leave views
// reading what it drops (2BP01), and under CASCADE drops those views
// (dependents first) with PostgreSQL's NOTICE.
func (s *Session) checkDependents(ctx context.Context, targets []dropObj, cascade bool) error {
	all, err := s.dependents(ctx, targets)
	if err != nil {
		return err
	}
	var deps []dependent
	for _, d := range all {
		if d.on != nil {
			deps = append(deps, d)
		}
	}
	if len(deps) == 0 {
		return nil
	}
	what := "desired object(s)"
	if len(targets) == 1 {
		what = s.objectDescription(ctx, targets[0])
	}
	return s.reportDependents(ctx, deps, what, "", cascade)
}

// reportDependents raises PostgreSQL's 2BP01 for dropping what (a
// description; "desired object(s)" for several) without CASCADE, or
// queues its "drop cascades to" NOTICE and drops the views among deps.
// schema names the schema a target depends on when a DROP SCHEMA drops
// it ("" otherwise).
func (s *Session) reportDependents(ctx context.Context, deps []dependent, what, schema string, cascade bool) error {
	lines := make([]string, 0, len(deps))
	for i, d := range deps {
		if i == maxReportedDeps {
			lines = append(lines, fmt.Sprintf("and %d other objects (see server log for list)", len(deps)-maxReportedDeps))
			break
		}
		desc := s.objectDescription(ctx, d.obj)
		switch {
		case cascade:
			lines = append(lines, "drop cascades to "+desc)
		case d.on == nil:
			lines = append(lines, desc+" depends on schema "+schema)
		default:
			lines = append(lines, desc+" depends on "+s.objectDescription(ctx, *d.on))
		}
	}
	if !cascade {
		verb := "it"
		if what == "desired object(s)" {
			verb = "them"
		}
		return &pgerr.Error{Code: pgerr.DependentObjectsStillExist,
			Message: fmt.Sprintf("cannot drop %s because other objects depend on %s", what, verb),
			Detail:  strings.Join(lines, "\n"),
			Hint:    "Use DROP ... CASCADE to drop the dependent objects too."}
	}
	if len(deps) == 1 {
		s.notice("%s", lines[0])
	} else {
		s.noticeDetail(fmt.Sprintf("drop cascades to %d other objects", len(deps)), strings.Join(lines, "\n"))
	}
	// Deletion order: a view before the views it reads.
	for i := len(deps) - 1; i >= 0; i-- {
		if deps[i].obj.isView {
			if err := s.dropLater(ctx, dropView, deps[i].obj.key); err != nil {
				return err
			}
		}
	}
	return nil
}
