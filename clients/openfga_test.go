package clients

import (
	"fmt"
	"testing"

	"github.com/loamdb/loam/regress/loamtest"
)

// TestClientsOpenFGA runs the roles script against a server whose
// privilege checks go through OpenFGA (--authorizer openfga): the same
// expectations as with the built-in authorizer and PostgreSQL 15.
func TestClientsOpenFGA(t *testing.T) {
	bin := loamtest.Binary(t)
	for _, s := range scripts {
		if s.name != "psycopg3-roles" {
			continue
		}
		if err := s.check(); err != nil {
			t.Fatalf("%v: `make clients-deps` installs it", err)
		}
		srv := loamtest.StartWith(t, bin, loamtest.Options{Args: []string{"--authorizer", "openfga"}})
		out, err := run(t, s, fmt.Sprintf("postgres://loam@%s/loam", srv.Addr))
		if err != nil {
			t.Fatalf("%s against Loam with OpenFGA: %v\n%s%s", s.name, err, out, srv.ExitedEarly())
		}
	}
}
