// Package testbin builds the target runner for tests that put it into an
// image or boot it: once per test process and architecture, with the go
// command that runs the tests, from this module's source.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fsbench/fsbench/wire/arch"
)

var (
	mu    sync.Mutex
	dir   string
	built = map[arch.Arch]string{}
)

// Runner returns a static fsbench-runner for a board of architecture a
// ("" for the host's).
func Runner(t testing.TB, a arch.Arch) string {
	t.Helper()
	if a == "" {
		host, ok := arch.Host()
		if !ok {
			t.Skip("fsbench builds no runner for this host's architecture")
		}
		a = host
	}
	if !a.Valid() {
		t.Fatalf("no runner for architecture %q", a)
	}
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[a]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "fsbench-testbin-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	out := filepath.Join(dir, "fsbench-runner-"+a.GOARCH())
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/fsbench/fsbench/cmd/fsbench-runner")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+a.GOARCH(), "GOARM="+a.GOARM())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the runner for %s: %v\n%s", a, err, b)
	}
	built[a] = out
	return out
}

// CacheDir is where tests keep downloaded Debian packages (kernels,
// busybox): $FSBENCH_CACHE, else one directory under the system's temporary
// directory shared by every test process.
func CacheDir() string {
	if d := os.Getenv("FSBENCH_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "fsbench-test-cache")
}
