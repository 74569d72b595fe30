package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/wire"
)

func TestParseConfig(t *testing.T) {
	abs, _ := filepath.Abs("d")
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		check   func(*config) bool
		wantErr string
	}{
		{"defaults", nil, nil, func(c *config) bool {
			def, _ := filepath.Abs("./loam-data")
			return c.DataDir == "./loam-data" && c.Listen == "127.0.0.1:5433" && c.HTTP == "127.0.0.1:8181" &&
				c.Metastore == "sqlite://"+filepath.Join(def, "meta.db") && c.Warehouse == "file://"+filepath.Join(def, "warehouse") &&
				c.LinkInterval == 10*time.Second && c.AuthMethod == wire.AuthSCRAM
		}, ""},
		{"env", nil, map[string]string{"LOAM_DATA_DIR": "d", "LOAM_LINK_INTERVAL": "3s", "LOAM_AUTH_METHOD": "password"}, func(c *config) bool {
			return c.DataDir == "d" && c.Metastore == "sqlite://"+filepath.Join(abs, "meta.db") && c.LinkInterval == 3*time.Second && c.AuthMethod == wire.AuthPassword
		}, ""},
		{"flag wins over env", []string{"--data-dir", "d"}, map[string]string{"LOAM_DATA_DIR": "other"}, func(c *config) bool {
			return c.DataDir == "d"
		}, ""},
		{"explicit metastore", []string{"--metastore", "postgres://x/y", "--warehouse", "file:///w"}, nil, func(c *config) bool {
			return c.Metastore == "postgres://x/y" && c.Warehouse == "file:///w"
		}, ""},
		{"non-loopback without password", []string{"--listen", "0.0.0.0:5433"}, nil, nil, "non-loopback"},
		{"empty host without password", []string{"--listen", ":5433"}, nil, nil, "non-loopback"},
		{"non-loopback with password", []string{"--listen", "0.0.0.0:5433"}, map[string]string{"LOAM_PASSWORD": "pw"}, func(c *config) bool {
			return c.Password == "pw"
		}, ""},
		{"ipv6 loopback", []string{"--listen", "[::1]:5433"}, nil, func(c *config) bool { return true }, ""},
		{"bad auth method", []string{"--auth-method", "md5"}, nil, nil, "auth-method"},
		{"query memory", []string{"--query-memory", "256MB"}, nil, func(c *config) bool { return c.QueryMemory == 256<<20 }, ""},
		{"query memory in bytes from env", nil, map[string]string{"LOAM_QUERY_MEMORY": "1000000"}, func(c *config) bool { return c.QueryMemory == 1000000 }, ""},
		{"query memory default", nil, nil, func(c *config) bool { return c.QueryMemory == 0 }, ""},
		{"bad query memory", []string{"--query-memory", "lots"}, nil, nil, "query-memory"},
		{"bad env duration", nil, map[string]string{"LOAM_LINK_INTERVAL": "soon"}, nil, "LOAM_LINK_INTERVAL"},
		{"parallel workers", nil, map[string]string{"LOAM_MAX_PARALLEL_WORKERS": "3"}, func(c *config) bool { return c.ParallelWorkers == 3 }, ""},
		{"bad parallel workers", []string{"--max-parallel-workers", "-2"}, nil, nil, "max-parallel-workers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(cfg) {
				t.Errorf("config %+v", cfg)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	rec := httptest.NewRecorder()
	httpHandler(nil).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Code != 200 || rec.Body.String() != "ok" {
		t.Errorf("GET /health: %d %q", rec.Code, rec.Body.String())
	}
}

func TestRunCommands(t *testing.T) {
	var out strings.Builder
	if code := run([]string{"version"}, &out, io.Discard); code != 0 || !strings.HasPrefix(out.String(), "loam ") {
		t.Errorf("version: %d %q", code, out.String())
	}
	if code := run([]string{"bogus"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}
