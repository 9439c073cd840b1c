// Package testbin builds the target runner for tests that put it into an
// image or boot it: once per test process and architecture, with the go
// command that runs the tests, from this module's source.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	dir   string
	built = map[string]string{}
)

// Runner returns a static fsbench-runner for goarch ("" for the host's).
func Runner(t testing.TB, goarch string) string {
	t.Helper()
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[goarch]; ok {
		return p
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "fsbench-testbin-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	out := filepath.Join(dir, "fsbench-runner-"+goarch)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/fsbench/fsbench/cmd/fsbench-runner")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch, "GOARM=7")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the runner for %s: %v\n%s", goarch, err, b)
	}
	built[goarch] = out
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

// GOARCH maps a spec's board architecture to Go's name for it.
func GOARCH(arch string) string {
	if arch == "x86_64" {
		return "amd64"
	}
	return arch
}
