package pgcatalog

import (
	"context"
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// parseACLItem reads aclitem text, grantee=privileges/grantor, back
// into an item (grantee "" for PUBLIC); names may be double-quoted.
func parseACLItem(s string) (aclItem, error) {
	var it aclItem
	bad := func() (aclItem, error) {
		return aclItem{}, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type aclitem: %q", s)
	}
	name := func(s string) (string, string) {
		if !strings.HasPrefix(s, `"`) {
			i := strings.IndexAny(s, "=/")
			if i < 0 {
				i = len(s)
			}
			return s[:i], s[i:]
		}
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '"' {
				if i+1 < len(s) && s[i+1] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				return b.String(), s[i+1:]
			}
			b.WriteByte(s[i])
		}
		return b.String(), ""
	}
	var rest string
	it.grantee, rest = name(strings.TrimSpace(s))
	if !strings.HasPrefix(rest, "=") {
		return bad()
	}
	rest = rest[1:]
	for rest != "" && rest[0] != '/' {
		i := strings.IndexFunc(aclLetterString, func(r rune) bool { return byte(r) == rest[0] })
		if i < 0 {
			return aclItem{}, pgerr.New(pgerr.InvalidTextRepresentation, `invalid mode character: must be one of "%s"`, aclLetterString)
		}
		it.privs |= 1 << i
		rest = rest[1:]
		if strings.HasPrefix(rest, "*") {
			it.opts |= 1 << i
			rest = rest[1:]
		}
	}
	if rest == "" || rest == "/" {
		return bad()
	}
	it.grantor, _ = name(rest[1:])
	return it, nil
}

// aclLetterString is the privileges' letters in bit order.
var aclLetterString = func() string {
	var b strings.Builder
	for _, p := range aclPrivileges {
		b.WriteByte(p.letter)
	}
	return b.String()
}()

// ACLExplode is aclexplode(aclitem[]) as a set-returning function
// (exec.SetTable): a row (grantor, grantee, privilege_type, is_grantable)
// for each privilege of each item, grantee 0 for PUBLIC.
type ACLExplode struct{}

// ACLExplodeColumns are its columns' names and types.
var ACLExplodeColumns = []Column{{"grantor", types.TOID}, {"grantee", types.TOID}, {"privilege_type", types.TText}, {"is_grantable", types.TBool}}

func (ACLExplode) Rows(args []types.Datum, _ *expr.Ctx) ([][]types.Datum, error) {
	if args[0].Null {
		return nil, nil
	}
	elems, null, err := types.SplitArrayText(args[0].S)
	if err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	for i, e := range elems {
		if null[i] {
			continue
		}
		it, err := parseACLItem(e)
		if err != nil {
			return nil, err
		}
		grantee := uint32(0)
		if it.grantee != "" {
			grantee = RoleOID(it.grantee)
		}
		for b, p := range aclPrivileges {
			if it.privs&(1<<b) != 0 {
				rows = append(rows, []types.Datum{dOID(RoleOID(it.grantor)), dOID(grantee), dText(p.name), dBool(it.opts&(1<<b) != 0)})
			}
		}
	}
	return rows, nil
}

// acldefaultKinds are acldefault's object types: the kind whose owner's
// privileges it lists, and PUBLIC's default privileges on it.
var acldefaultKinds = map[string]struct {
	owner  uint32
	public uint32
}{
	"r": {ownerMask("table"), 0}, "s": {ownerMask("sequence"), 0}, "n": {ownerMask("schema"), 0},
	"d": {ownerMask("database"), privBit("TEMPORARY") | privBit("CONNECT")},
	"f": {privBit("EXECUTE"), privBit("EXECUTE")}, "l": {privBit("USAGE"), privBit("USAGE")},
	"T": {privBit("USAGE"), privBit("USAGE")}, "c": {0, 0},
}

// acldefaultFunc binds acldefault(type "char", owner oid): the ACL an
// object of the type starts with, PUBLIC's default privileges first.
func (s *Session) acldefaultFunc(ctx context.Context, args []types.T) (*Func, error) {
	if len(args) != 2 {
		return nil, nil
	}
	return &Func{Args: []types.T{types.TQChar, types.TOID}, Result: types.ArrayOf(types.ACLItem), Strict: true,
		Fn: func(ec *expr.Ctx, a []types.Datum) (types.Datum, error) {
			k, ok := acldefaultKinds[a[0].S]
			if !ok {
				return types.Datum{}, pgerr.New(pgerr.InternalError, "unrecognized objtype abbreviation: %s", a[0].S)
			}
			rs, err := s.roleSet(runContext(ec, ctx))
			if err != nil {
				return types.Datum{}, err
			}
			owner := strconv.FormatInt(a[1].I, 10)
			if r, ok := rs.byOID[a[1].I]; ok {
				owner = r.Name
			}
			var items []aclItem
			if k.public != 0 {
				items = append(items, aclItem{grantor: owner, privs: k.public})
			}
			if k.owner != 0 {
				items = append(items, aclItem{grantee: owner, grantor: owner, privs: k.owner})
			}
			return aclDatum(items), nil
		}}, nil
}
