package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
)

// AuthReject refuses the connection (a pg_hba.conf "reject" line).
const AuthReject AuthMethod = "reject"

// HBA is a host-based authentication file in pg_hba.conf's format: the
// first line matching a connection's type, database, user and address
// decides its method; no match refuses it. Loam takes
//
//	host | hostssl | hostnossl | hostgssenc | hostnogssenc
//	    database: all | sameuser | name[,name…]  (replication never matches)
//	    user:     all | name | +role (its members) [,…]
//	    address:  all | samehost | samenet | a.b.c.d/n | ::1/128 | IP MASK
//	    method:   trust | scram-sha-256 | md5 | password | reject
//
// md5 runs SCRAM-SHA-256, as PostgreSQL 14+ does for a role whose
// verifier is SCRAM (Loam stores only SCRAM verifiers). "local" lines are
// skipped: Loam listens on TCP only. Quoted names are names, never
// keywords. What Loam does not support (@file, hostnames, options after
// the method, other methods) is an error naming the line.
type HBA struct {
	File  string
	Lines []HBALine
}

// HBALine is one rule.
type HBALine struct {
	Line      int
	Text      string
	Type      string // host, hostssl, hostnossl, hostgssenc, hostnogssenc
	Databases []hbaToken
	Users     []hbaToken
	Address   hbaAddress
	Method    AuthMethod
}

type hbaToken struct {
	s      string
	quoted bool
}

func (t hbaToken) keyword(k string) bool { return !t.quoted && t.s == k }

type hbaAddress struct {
	all, sameHost, sameNet bool
	net                    *net.IPNet
}

// LoadHBA reads and parses the file at path.
func LoadHBA(path string) (*HBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hba file: %w", err)
	}
	defer f.Close()
	return ParseHBA(path, f)
}

// ParseHBA parses pg_hba.conf text; name is the file named in errors.
func ParseHBA(name string, r io.Reader) (*HBA, error) {
	h := &HBA{File: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		fields, err := hbaFields(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(fields) == 0 {
			continue
		}
		line, skip, err := parseHBALine(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if skip {
			continue
		}
		line.Line, line.Text = n, strings.TrimSpace(text)
		h.Lines = append(h.Lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return h, nil
}

// hbaFields splits a line into fields of comma-separated tokens, as
// PostgreSQL's tokenizer: whitespace ends a field unless the token before
// it ended in a comma, double quotes quote ("" is a quote), # starts a
// comment outside quotes.
func hbaFields(line string) ([][]hbaToken, error) {
	var fields [][]hbaToken
	var field []hbaToken
	var cur strings.Builder
	inTok, quoted, inQuote, comma := false, false, false, false
	endTok := func() {
		if inTok {
			field = append(field, hbaToken{s: cur.String(), quoted: quoted})
		}
		cur.Reset()
		inTok, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case inQuote && ch == '"' && i+1 < len(line) && line[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			inQuote, inTok, quoted = !inQuote, true, true
		case inQuote:
			cur.WriteByte(ch)
		case ch == '#':
			i = len(line)
		case ch == ',':
			endTok()
			comma = true
		case ch == ' ' || ch == '\t' || ch == '\r':
			endTok()
			if !comma && len(field) > 0 {
				fields = append(fields, field)
				field = nil
			}
		default:
			comma = false
			cur.WriteByte(ch)
			inTok = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated quoted string")
	}
	endTok()
	if comma {
		return nil, fmt.Errorf("a list ends in a comma")
	}
	if len(field) > 0 {
		fields = append(fields, field)
	}
	return fields, nil
}

func parseHBALine(fields [][]hbaToken) (l HBALine, skip bool, err error) {
	single := func(i int, what string) (hbaToken, error) {
		if i >= len(fields) {
			return hbaToken{}, fmt.Errorf("end-of-line before %s", what)
		}
		if len(fields[i]) != 1 {
			return hbaToken{}, fmt.Errorf("multiple values in %s field", what)
		}
		return fields[i][0], nil
	}
	typ, err := single(0, "connection type")
	if err != nil {
		return l, false, err
	}
	switch typ.s {
	case "local":
		return l, true, nil // no Unix-domain socket in Loam
	case "host", "hostssl", "hostnossl", "hostgssenc", "hostnogssenc":
		l.Type = typ.s
	default:
		return l, false, fmt.Errorf("invalid connection type %q", typ.s)
	}
	if len(fields) < 2 {
		return l, false, fmt.Errorf("end-of-line before database specification")
	}
	for _, t := range fields[1] {
		if !t.quoted && (strings.HasPrefix(t.s, "@") || t.s == "samerole" || t.s == "samegroup") {
			return l, false, fmt.Errorf("database %q is not supported in Loam's hba file", t.s)
		}
	}
	l.Databases = fields[1]
	if len(fields) < 3 {
		return l, false, fmt.Errorf("end-of-line before role specification")
	}
	for _, t := range fields[2] {
		if !t.quoted && strings.HasPrefix(t.s, "@") {
			return l, false, fmt.Errorf("role %q: included files are not supported in Loam's hba file", t.s)
		}
		if !t.quoted && t.s == "+" {
			return l, false, fmt.Errorf("role %q: + wants a role name", t.s)
		}
	}
	l.Users = fields[2]
	addr, err := single(3, "IP address")
	if err != nil {
		return l, false, err
	}
	next := 4
	switch {
	case addr.keyword("all"):
		l.Address.all = true
	case addr.keyword("samehost"):
		l.Address.sameHost = true
	case addr.keyword("samenet"):
		l.Address.sameNet = true
	case strings.Contains(addr.s, "/"):
		_, n, perr := net.ParseCIDR(addr.s)
		if perr != nil {
			return l, false, fmt.Errorf("invalid IP address %q", addr.s)
		}
		l.Address.net = n
	default:
		ip := net.ParseIP(addr.s)
		if ip == nil {
			return l, false, fmt.Errorf("invalid IP address %q (host names are not supported)", addr.s)
		}
		m, merr := single(4, "netmask")
		if merr != nil {
			return l, false, fmt.Errorf("specify an address range in CIDR notation, or provide a separate netmask")
		}
		mask := net.ParseIP(m.s)
		if mask == nil {
			return l, false, fmt.Errorf("invalid IP mask %q", m.s)
		}
		if v4 := ip.To4(); v4 != nil {
			ip, mask = v4, mask.To4()
		}
		if mask == nil || len(mask) != len(ip) {
			return l, false, fmt.Errorf("IP address and mask do not match")
		}
		l.Address.net = &net.IPNet{IP: ip.Mask(net.IPMask(mask)), Mask: net.IPMask(mask)}
		next = 5
	}
	method, err := single(next, "authentication method")
	if err != nil {
		return l, false, err
	}
	switch method.s {
	case "trust":
		l.Method = AuthTrust
	case "scram-sha-256", "md5":
		l.Method = AuthSCRAM
	case "password":
		l.Method = AuthPassword
	case "reject":
		l.Method = AuthReject
	default:
		return l, false, fmt.Errorf("authentication method %q is not supported (Loam has trust, scram-sha-256, md5, password and reject)", method.s)
	}
	if len(fields) > next+1 {
		return l, false, fmt.Errorf("authentication option %q is not supported", fields[next+1][0].s)
	}
	return l, false, nil
}

// hbaConn is what a connection is matched on.
type hbaConn struct {
	ssl      bool
	database string
	user     string
	ip       net.IP // nil when the client has no IP address
	// memberOf is every role user is a member of, directly or not
	// (Roles.MemberOf), for +role; looked up only when a line has one.
	memberOf func() []string
}

// Match returns the first line that applies to the connection.
func (h *HBA) match(c hbaConn) (*HBALine, bool) {
	for i := range h.Lines {
		if h.Lines[i].matches(c) {
			return &h.Lines[i], true
		}
	}
	return nil, false
}

func (l *HBALine) matches(c hbaConn) bool {
	switch l.Type {
	case "hostssl":
		if !c.ssl {
			return false
		}
	case "hostnossl":
		if c.ssl {
			return false
		}
	case "hostgssenc":
		return false // no GSSAPI encryption in Loam
	}
	return l.matchDatabase(c) && l.matchUser(c) && l.Address.matches(c.ip)
}

func (l *HBALine) matchDatabase(c hbaConn) bool {
	return slices.ContainsFunc(l.Databases, func(t hbaToken) bool {
		switch {
		case t.keyword("all"):
			return true
		case t.keyword("sameuser"):
			return c.database == c.user
		case t.keyword("replication"):
			return false // no replication connections in Loam
		}
		return t.s == c.database
	})
}

func (l *HBALine) matchUser(c hbaConn) bool {
	return slices.ContainsFunc(l.Users, func(t hbaToken) bool {
		if group, ok := strings.CutPrefix(t.s, "+"); ok && !t.quoted {
			// A role is a member of itself, as PostgreSQL's is_member.
			return group == c.user || c.memberOf != nil && slices.Contains(c.memberOf(), group)
		}
		return t.keyword("all") || t.s == c.user
	})
}

func (a hbaAddress) matches(ip net.IP) bool {
	if a.all {
		return true
	}
	if ip == nil {
		return false
	}
	if a.net != nil {
		if v4 := ip.To4(); v4 != nil && a.net.IP.To4() != nil {
			ip = v4
		}
		return a.net.Contains(ip)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ad := range addrs {
		n, ok := ad.(*net.IPNet)
		if !ok {
			continue
		}
		if a.sameHost && n.IP.Equal(ip) || a.sameNet && n.Contains(ip) {
			return true
		}
	}
	return false
}

// defaultHBA is the rules without an hba file. With method set (a password
// was configured), every connection uses it; without, loopback clients
// are trusted and others must use SCRAM: nothing is trusted off loopback.
func defaultHBA(method AuthMethod) *HBA {
	if method != "" && method != AuthTrust {
		return &HBA{File: "(default)", Lines: []HBALine{allLine("host all all all "+string(method), method, nil)}}
	}
	_, v4, _ := net.ParseCIDR("127.0.0.0/8")
	_, v6, _ := net.ParseCIDR("::1/128")
	return &HBA{File: "(default)", Lines: []HBALine{
		allLine("host all all 127.0.0.0/8 trust", AuthTrust, v4),
		allLine("host all all ::1/128 trust", AuthTrust, v6),
		allLine("host all all all scram-sha-256", AuthSCRAM, nil),
	}}
}

func allLine(text string, m AuthMethod, n *net.IPNet) HBALine {
	all := []hbaToken{{s: "all"}}
	return HBALine{Text: text, Type: "host", Databases: all, Users: all,
		Address: hbaAddress{all: n == nil, net: n}, Method: m}
}
