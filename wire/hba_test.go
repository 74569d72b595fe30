package wire

import (
	"strings"
	"testing"
)

func TestParseHBAErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"hots all all all trust", `f:1: invalid connection type "hots"`},
		{"\n\nhost all", "f:3: end-of-line before role specification"},
		{"host all all", "f:1: end-of-line before IP address"},
		{"host all all 10.0.0.1/33 trust", `f:1: invalid IP address "10.0.0.1/33"`},
		{"host all all example.com trust", `f:1: invalid IP address "example.com" (host names are not supported)`},
		{"host all all 10.0.0.1 trust", `f:1: invalid IP mask "trust"`},
		{"host all all 10.0.0.1", "f:1: specify an address range in CIDR notation, or provide a separate netmask"},
		{"host all all all", "f:1: end-of-line before authentication method"},
		{"host all all all ident", `f:1: authentication method "ident" is not supported (Loam has trust, scram-sha-256, md5, password and reject)`},
		{"host all all all trust clientcert=verify-full", `f:1: authentication option "clientcert=verify-full" is not supported`},
		{"host all @users all trust", `f:1: role "@users": included files are not supported in Loam's hba file`},
		{"host all + all trust", `f:1: role "+": + wants a role name`},
		{"host @dbs all all trust", `f:1: database "@dbs" is not supported in Loam's hba file`},
		{`host "all all all trust`, "f:1: unterminated quoted string"},
		{"host all a, all trust", "f:1: invalid IP address \"trust\" (host names are not supported)"},
		{"host all a,b, all trust", `f:1: invalid IP address "trust" (host names are not supported)`},
		{"host all all all trust,", "f:1: a list ends in a comma"},
		{"host all,x all all trust reject", `f:1: authentication option "reject" is not supported`},
	} {
		_, err := ParseHBA("f", strings.NewReader(tc.text))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.text, err, tc.want)
		}
	}
}

func TestHBAMatch(t *testing.T) {
	h := mustHBA(t, `
local all all reject                         # skipped: no Unix socket
host replication all all trust               # never a replication connection
hostgssenc all all all trust                 # no GSS encryption
host "all" all 127.0.0.1/32 trust            # "all" quoted is a database named all
hostnossl loam,other bob, carol 10.0.0.0/8 password
hostssl all bob 10.0.0.0 255.0.0.0 scram-sha-256
host sameuser all ::1/128 trust
host all all ::ffff:192.168.0.0/112 md5
host all all all reject
`)
	for _, tc := range []struct {
		ssl          bool
		db, user, ip string
		line         int
	}{
		{false, "all", "x", "127.0.0.1", 5},
		{false, "loam", "x", "127.0.0.1", 10},
		{false, "loam", "bob", "10.1.2.3", 6},
		{false, "other", "carol", "10.1.2.3", 6},
		{true, "loam", "bob", "10.1.2.3", 7},
		{true, "loam", "carol", "10.1.2.3", 10},
		{false, "loam", "bob", "11.1.2.3", 10},
		{false, "ann", "ann", "::1", 8},
		{false, "loam", "ann", "::1", 10},
		{false, "loam", "ann", "192.168.3.4", 9},
		{false, "loam", "ann", "", 10},
	} {
		l, ok := h.match(hbaConn{ssl: tc.ssl, database: tc.db, user: tc.user, ip: parseIP(tc.ip)})
		if !ok || l.Line != tc.line {
			t.Errorf("%+v: line %v, want %d", tc, l, tc.line)
		}
	}
	// samehost and samenet look at the machine's interfaces; loopback's
	// are on every machine.
	same := mustHBA(t, "host all a samehost trust\nhost all all samenet password\n")
	for _, tc := range []struct {
		user, ip string
		line     int
	}{{"a", "127.0.0.1", 1}, {"b", "127.0.0.1", 2}, {"a", "127.0.0.9", 2}, {"a", "198.51.100.1", 0}} {
		got := 0
		if l, ok := same.match(hbaConn{database: "loam", user: tc.user, ip: parseIP(tc.ip)}); ok {
			got = l.Line
		}
		if got != tc.line {
			t.Errorf("%+v: line %d", tc, got)
		}
	}
	// +role matches the role and its members; a quoted "+role" is a name.
	groups := mustHBA(t, "host all +admins 127.0.0.1/32 trust\nhost all \"+ops\" all password\n")
	for _, tc := range []struct {
		user    string
		members []string
		line    int
	}{{"admins", nil, 1}, {"ann", []string{"staff", "admins"}, 1}, {"bob", []string{"staff"}, 0}, {"+ops", nil, 2}, {"ops", nil, 0}} {
		got, asked := 0, false
		c := hbaConn{database: "loam", user: tc.user, ip: parseIP("127.0.0.1"),
			memberOf: func() []string { asked = true; return tc.members }}
		if l, ok := groups.match(c); ok {
			got = l.Line
		}
		if got != tc.line {
			t.Errorf("%+v: line %d", tc, got)
		}
		if tc.user == "admins" && asked {
			t.Error("memberships looked up for the role itself")
		}
	}
	if got := h.Lines[2].Text; got != `host "all" all 127.0.0.1/32 trust            # "all" quoted is a database named all` {
		t.Errorf("text %q", got)
	}
	if len(h.Lines) != 8 {
		t.Errorf("%d lines kept, want 8 (local skipped)", len(h.Lines))
	}
}

// FuzzParseHBA: any file parses or fails with an error naming the file;
// what parses matches without panicking.
func FuzzParseHBA(f *testing.F) {
	for _, s := range []string{
		"host all all 127.0.0.1/32 trust\n",
		"hostssl \"a,b\",c all 10.0.0.0 255.0.0.0 md5 # x\n",
		"local all all peer\nhost sameuser all ::1/128 reject\n",
		"host all a, b samenet password\nhostnossl all all all scram-sha-256",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		h, err := ParseHBA("f", strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		h.match(hbaConn{database: "loam", user: "loam", ip: parseIP("127.0.0.1")})
		h.match(hbaConn{ssl: true, database: "x", user: "x"})
	})
}
