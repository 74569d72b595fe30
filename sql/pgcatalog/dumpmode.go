package pgcatalog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go/table"
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// DumpClausePrefix starts each line of a table's comment that carries
// one of its Loam clauses through pg_dump: "Loam: SET PARTITIONED BY
// (day(ts))", "Loam: SET SORTED BY (tenant, ts)", "Loam: SET (retention
// = '180 days' ON ts, …)". PostgreSQL keeps such a comment as text;
// Loam's COMMENT ON TABLE runs each line as ALTER TABLE t <line> and
// keeps the rest of the comment (sql/engine/dumpclauses.go).
const DumpClausePrefix = "Loam: "

// dumpApplication is the application_name PostgreSQL's pg_dump connects
// with (its fallback_application_name).
const dumpApplication = "pg_dump"

// forDump says whether the session is PostgreSQL's pg_dump, to which
// the catalogs show Loam's tables as ordinary tables (pg_dump dumps no
// rows of a partitioned table, and would print PARTITION BY and WITH
// (…) that PostgreSQL refuses) and their clauses as comment lines.
func (s *Session) forDump() bool {
	return s.src != nil && s.src.Settings()["application_name"] == dumpApplication
}

// asDumped is r as pg_dump is shown it: an ordinary table, no
// reloptions, its Loam clauses appended to its comment.
func asDumped(r relation, t *table.Table) relation {
	if r.kind != "r" && r.kind != "p" || t == nil {
		return r
	}
	r.kind = "r"
	r.clauses.options = nil
	if r.defaults != nil {
		defs := make([]string, len(r.defaults))
		for i, d := range r.defaults {
			defs[i] = qualifyNextval(d, r.ns)
		}
		r.defaults = defs
	}
	lines := dumpClauseLines(r.clauses, t)
	if len(lines) == 0 {
		return r
	}
	var b strings.Builder
	if r.comment != "" {
		b.WriteString(r.comment)
		b.WriteString("\n\n")
	}
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(DumpClausePrefix)
		b.WriteString(l)
	}
	r.comment = b.String()
	return r
}

// dumpClauseLines are the ALTER TABLE clauses that give a fresh table
// t's Loam clauses.
func dumpClauseLines(lc loamClauses, t *table.Table) []string {
	var lines []string
	if lc.partKey != "" {
		lines = append(lines, "SET PARTITIONED BY ("+lc.partKey+")")
	}
	if lc.sortOrder != "" {
		lines = append(lines, "SET SORTED BY ("+lc.sortOrder+")")
	}
	props := t.Properties()
	var opts []string
	if r := props[PropRetention]; r != "" {
		opts = append(opts, "retention = "+expr.QuoteLiteral(r)+" ON "+expr.QuoteIdent(props[PropRetentionColumn]))
	}
	if v := props[PropSnapshotRetention]; v != "" {
		opts = append(opts, "snapshot_retention = "+expr.QuoteLiteral(v))
	}
	if v := props[PropCommitInterval]; v != "" {
		opts = append(opts, "commit_interval = "+expr.QuoteLiteral(v))
	}
	if n, err := strconv.ParseInt(props[table.WriteTargetFileSizeBytesKey], 10, 64); err == nil {
		opts = append(opts, "target_file_size = "+expr.QuoteLiteral(memorySize(n)))
	}
	if v := props[link.MergeProperty]; v != "" {
		opts = append(opts, "merge = "+expr.QuoteLiteral(v))
	}
	if len(opts) > 0 {
		lines = append(lines, "SET ("+strings.Join(opts, ", ")+")")
	}
	return lines
}

// nextvalRE finds the sequence of a column default's nextval('s'::regclass).
var nextvalRE = regexp.MustCompile(`nextval\('((?:[^']|'')+)'::regclass\)`)

// qualifyNextval schema-qualifies the sequences of a default's nextval
// calls with ns, as PostgreSQL's regclass output does when the search
// path (pg_dump's is empty) does not find them.
func qualifyNextval(def, ns string) string {
	return nextvalRE.ReplaceAllStringFunc(def, func(m string) string {
		name := nextvalRE.FindStringSubmatch(m)[1]
		if strings.Contains(name, ".") {
			return m
		}
		return "nextval('" + strings.ReplaceAll(expr.QuoteIdent(ns), "'", "''") + "." + name + "'::regclass)"
	})
}

// attrdefSequenceDeps are pg_depend's rows for column defaults that call
// nextval on a sequence: the default depends on it (deptype n), which
// pg_dump follows to create the sequence before it sets the default.
func attrdefSequenceDeps(rel *Relation, rels []relation) [][]types.Datum {
	seqs := map[string]bool{}
	for _, r := range rels {
		if r.kind == "S" {
			seqs[r.ns+"."+r.name] = true
		}
	}
	var out [][]types.Datum
	for _, r := range rels {
		for i := range r.cols {
			if !r.hasDefault(i) {
				continue
			}
			for _, m := range nextvalRE.FindAllStringSubmatch(r.defaults[i], -1) {
				ns, name := r.ns, strings.ReplaceAll(m[1], "''", "'")
				if n, q, ok := strings.Cut(name, "."); ok {
					ns, name = strings.Trim(n, `"`), q
				}
				name = strings.Trim(name, `"`)
				if !seqs[ns+"."+name] {
					continue
				}
				out = append(out, rel.row(map[string]types.Datum{
					"classid": dOID(systemCatalogOIDs["pg_attrdef"]), "objid": dOID(ObjectOID(r.ns, "\x00attrdef "+r.name+" "+itoa(i+1))), "objsubid": {I: 0},
					"refclassid": dOID(systemCatalogOIDs["pg_class"]), "refobjid": dOID(ObjectOID(ns, name)), "refobjsubid": {I: 0}, "deptype": {S: "n"}}))
			}
		}
	}
	return out
}

// qualifyViews schema-qualifies the relations the dumped views name, as
// PostgreSQL's pg_get_viewdef does under pg_dump's empty search path (a
// view's text is kept as written; PostgreSQL would not find its tables
// when the dump is restored). An unqualified name is the view's own
// schema's relation, else public's; a view whose text does not parse
// again is left as it is.
func qualifyViews(rels []relation) {
	have := map[string]bool{}
	for _, r := range rels {
		have[r.ns+"."+r.name] = true
	}
	for i, r := range rels {
		if r.kind != "v" || r.def == "" {
			continue
		}
		if q, err := qualifyViewSQL(r.def, r.ns, have); err == nil {
			rels[i].def = q
		}
	}
}

func qualifyViewSQL(def, ns string, have map[string]bool) (string, error) {
	tree, err := pg.Parse(def)
	if err != nil {
		return "", err
	}
	ctes := map[string]bool{}
	var rvs []*pg.RangeVar
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.CommonTableExpr:
			ctes[x.Ctename] = true
		case *pg.RangeVar:
			rvs = append(rvs, x)
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(tree.ProtoReflect())
	for _, rv := range rvs {
		if rv.Schemaname != "" || ctes[rv.Relname] {
			continue
		}
		for _, cand := range []string{ns, "public"} {
			if have[cand+"."+rv.Relname] {
				rv.Schemaname = cand
				break
			}
		}
	}
	return pg.Deparse(tree)
}

// viewDeps are pg_depend rows making each view depend on the relations
// it reads, for pg_dump only: PostgreSQL records them on the view's
// _RETURN rule, which Loam's pg_rewrite does not list; pg_dump follows
// either to create a view after its tables. The views' texts are already
// qualified (qualifyViews).
func viewDeps(rel *Relation, rels []relation) [][]types.Datum {
	have := map[string]bool{}
	for _, r := range rels {
		have[r.ns+"."+r.name] = true
	}
	pgClass := dOID(systemCatalogOIDs["pg_class"])
	var out [][]types.Datum
	for _, r := range rels {
		if r.kind != "v" || r.def == "" {
			continue
		}
		tree, err := pg.Parse(r.def)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		var walk func(m protoreflect.Message)
		walk = func(m protoreflect.Message) {
			if rv, ok := m.Interface().(*pg.RangeVar); ok {
				key := rv.Schemaname + "." + rv.Relname
				if rv.Schemaname != "" && have[key] && !seen[key] {
					seen[key] = true
					out = append(out, rel.row(map[string]types.Datum{"classid": pgClass, "objid": dOID(ObjectOID(r.ns, r.name)), "objsubid": {I: 0},
						"refclassid": pgClass, "refobjid": dOID(ObjectOID(rv.Schemaname, rv.Relname)), "refobjsubid": {I: 0}, "deptype": {S: "n"}}))
				}
				return
			}
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				switch {
				case fd.IsList() && fd.Message() != nil:
					for i := 0; i < v.List().Len(); i++ {
						walk(v.List().Get(i).Message())
					}
				case fd.Message() != nil && !fd.IsMap():
					walk(v.Message())
				}
				return true
			})
		}
		walk(tree.ProtoReflect())
	}
	return out
}
