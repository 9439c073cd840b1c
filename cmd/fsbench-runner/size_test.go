package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxSize is the runner's budget: it goes into every image, and boards
// have small root filesystems. Stripped, as scripts/install.sh builds it:
// amd64 3.99 MiB, arm 3.88, arm64 3.75, riscv64 3.56 (Go 1.26), after the
// runner dropped crypto/sha256 (and its FIPS module), archive/tar and
// package flag for code of its own. A new dependency of the runner must
// pay for itself.
const maxSize = 4 << 20

func TestStrippedRunnerFitsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds the runner four times")
	}
	for _, arch := range []string{"amd64", "arm64", "arm", "riscv64"} {
		out := filepath.Join(t.TempDir(), "fsbench-runner-"+arch)
		// As scripts/install.sh builds it, version string included.
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags",
			"-s -w -X github.com/fsbench/fsbench/target/runner.Version=v0.0.0-100-g0123456-dirty", "-o", out, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOARM=7")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", arch, err, b)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxSize {
			t.Errorf("%s: the stripped runner has %d bytes, more than the %d budget", arch, fi.Size(), maxSize)
		}
		t.Logf("%s: %.2f MiB", arch, float64(fi.Size())/(1<<20))
	}
}
