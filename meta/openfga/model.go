package openfga

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/loamdb/loam/meta"
)

// The relationship model, after Lakekeeper's (server → project →
// namespace → table), with PostgreSQL's meaning: a privilege is granted
// on one object and does not flow down the hierarchy, as GRANT SELECT on
// a schema does not exist in PostgreSQL. The hierarchy carries only what
// does flow: server admins (superusers) may do anything anywhere, and an
// object with no recorded owner belongs to the bootstrap role.
//
// Roles. role:R#member holds the roles that use R's privileges: R itself
// (a tuple role:R#member@role:R) and, for each GRANT R TO M, M's heirs
// (role:R#member@role:M#heir). A role's heirs are its members while it
// has INHERIT (role:M#inherits@role:*) and no one otherwise, so the chain
// stops at a NOINHERIT role as PostgreSQL's does, and ALTER ROLE … INHERIT
// changes one tuple.
//
// Objects. <type>:<id>#owner@role:O#member for a recorded owner, with
// <type>:<id>#recorded@role:* beside it to switch the bootstrap owner
// off; <type>:<id>#<privilege>@role:G#member for a grant (role:* for
// PUBLIC); can_<privilege> is what Check asks. The parent links are
// structural (a table's schema is in its name), so they are not stored:
// every Check sends them as contextual tuples, and an object the
// Store has never recorded anything about still has its parents.

// serverID and projectID name the one server and the one database.
const (
	serverID  = "loam"
	projectID = "loam"
)

// typeOf maps an Object kind to the model's type.
var typeOf = map[string]string{
	meta.KindDatabase: "project",
	meta.KindSchema:   "namespace",
	meta.KindTable:    "table",
	meta.KindSequence: "sequence",
}

// privileges are the grantable privileges of each type, PostgreSQL's for
// the kind (TEMP is TEMPORARY's other spelling, folded in relationOf).
var privileges = map[string][]string{
	"project":   {"CREATE", "CONNECT", "TEMPORARY"},
	"namespace": {"USAGE", "CREATE"},
	"table":     {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"},
	"sequence":  {"USAGE", "SELECT", "UPDATE"},
}

// parentOf is each type's parent type, by the tupleset relation parent.
var parentOf = map[string]string{
	"project":   "server",
	"namespace": "project",
	"table":     "namespace",
	"sequence":  "namespace",
}

// modelDSL is the authorization model in OpenFGA's DSL.
func modelDSL() string {
	var b strings.Builder
	b.WriteString(`model
  schema 1.1

type role
  relations
    define inherits: [role:*]
    define member: [role, role#heir]
    define heir: member and inherits

type server
  relations
    define admin: [role]
    define bootstrap: [role#member]
`)
	for _, t := range []string{"project", "namespace", "table", "sequence"} {
		fmt.Fprintf(&b, `
type %s
  relations
    define parent: [%s]
    define admin: admin from parent
    define bootstrap: bootstrap from parent
    define recorded: [role:*]
    define owner: [role#member] or (bootstrap but not recorded)
    define can_own: owner or admin
`, t, parentOf[t])
		for _, p := range privileges[t] {
			r := strings.ToLower(p)
			fmt.Fprintf(&b, "    define %s: [role#member, role:*]\n    define can_%s: %s or can_own\n", r, r, r)
		}
	}
	return b.String()
}

// relationOf is the relation a grant of priv on an object of type t is
// written to, "" when t has no such privilege.
func relationOf(t, priv string) string {
	priv = strings.ToUpper(priv)
	if priv == "TEMP" {
		priv = "TEMPORARY"
	}
	for _, p := range privileges[t] {
		if p == priv {
			return strings.ToLower(p)
		}
	}
	return ""
}

// checkRelation is the relation Check asks for priv: can_<priv>, or
// can_own for meta.OwnerPrivilege and for a privilege the type does not
// have (which only the owner and superusers hold, as in the built-in
// authorizer).
func checkRelation(t, priv string) string {
	if r := relationOf(t, priv); r != "" {
		return "can_" + r
	}
	return "can_own"
}

// maxID bounds an escaped id; OpenFGA takes objects of up to 256 bytes
// ("type:id") and users of up to 512.
const maxID = 200

// escape makes a name an OpenFGA id: bytes outside [A-Za-z0-9_-] become
// %XX, so '.' can join a schema and a name and ids stay apart; an id
// longer than maxID becomes ~ and its SHA-256 ('~' never survives
// escaping, so the two forms cannot meet).
func escape(parts ...string) string {
	var b strings.Builder
	for i, s := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		for j := 0; j < len(s); j++ {
			c := s[j]
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
				b.WriteByte(c)
			} else {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
	}
	if b.Len() <= maxID {
		return b.String()
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "~" + hex.EncodeToString(sum[:])
}

// roleUser is role name as a Check's user.
func roleUser(name string) string { return "role:" + escape(name) }

// roleMembers is the userset of the roles using name's privileges, or
// every role for PUBLIC.
func roleMembers(name string) string {
	if name == meta.PublicRole {
		return "role:*"
	}
	return roleUser(name) + "#member"
}

// objectOf is obj's type and OpenFGA object, with the parent tuples that
// link it to the server; ok is false for a kind the model lacks.
func objectOf(obj meta.Object) (typ, object string, parents [][3]string, ok bool) {
	typ, ok = typeOf[obj.Kind]
	if !ok {
		return "", "", nil, false
	}
	project := "project:" + projectID
	switch typ {
	case "project":
		object = "project:" + escape(obj.Name)
		project = object
	case "namespace":
		object = "namespace:" + escape(obj.Name)
		parents = append(parents, [3]string{object, "parent", project})
	default:
		ns := "namespace:" + escape(obj.Schema)
		object = typ + ":" + escape(obj.Schema, obj.Name)
		parents = append(parents, [3]string{object, "parent", ns}, [3]string{ns, "parent", project})
	}
	parents = append(parents, [3]string{project, "parent", "server:" + serverID})
	return typ, object, parents, true
}
