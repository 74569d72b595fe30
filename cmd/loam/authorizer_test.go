package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/openfga"
)

// TestAuthzFlag: --authorizer and LOAM_AUTHORIZER pick the authorizer
// the engine is built with.
func TestAuthzFlag(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args    []string
		env     map[string]string
		want    string
		wantErr string
	}{
		{nil, nil, authorizerBuiltin, ""},
		{[]string{"--authorizer", "openfga"}, nil, authorizerOpenFGA, ""},
		{nil, map[string]string{"LOAM_AUTHORIZER": "openfga"}, authorizerOpenFGA, ""},
		{[]string{"--authorizer", "builtin"}, map[string]string{"LOAM_AUTHORIZER": "openfga"}, authorizerBuiltin, ""},
		{[]string{"--authorizer", "opa"}, nil, "", `--authorizer "opa"`},
	}
	for _, c := range cases {
		args := append([]string{"--data-dir", dir}, c.args...)
		cfg, err := parseConfig(args, func(k string) string { return c.env[k] }, io.Discard)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v %v: err %v, want %q", c.args, c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v %v: %v", c.args, c.env, err)
		}
		if cfg.Authorizer != c.want {
			t.Errorf("%v %v: authorizer %q, want %q", c.args, c.env, cfg.Authorizer, c.want)
		}
	}
	if newAuthorizer(authorizerBuiltin) != nil {
		t.Error("builtin: want the engine's default (nil)")
	}
	st, err := meta.Open(context.Background(), "sqlite://"+filepath.Join(dir, "meta.db"), "file://"+filepath.Join(dir, "wh"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := newAuthorizer(authorizerOpenFGA)(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer a.(*openfga.Authorizer).Close()
}
