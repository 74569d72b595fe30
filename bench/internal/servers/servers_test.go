package servers

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	peak, cur, err := Memory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if peak <= 0 || cur <= 0 || cur > peak {
		t.Errorf("peak %d, current %d", peak, cur)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", "loam")); err != nil {
		t.Errorf("RepoRoot() = %s, which has no cmd/loam: %v", root, err)
	}
}
