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
//
// amd64's code is the largest of the four and its boards the least
// pressed for space (QEMU's x86_64 target first of all): with the A/B
// update's crash states it takes 4.04 MiB, and its budget is a quarter of
// a MiB more; the boards' architectures keep 4 MiB.
const maxSize = 4 << 20

var archBudget = map[string]int64{"amd64": maxSize + 256<<10}

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
		budget := int64(maxSize)
		if b, ok := archBudget[arch]; ok {
			budget = b
		}
		if fi.Size() > budget {
			t.Errorf("%s: the stripped runner has %d bytes, more than the %d budget", arch, fi.Size(), budget)
		}
		t.Logf("%s: %.2f MiB", arch, float64(fi.Size())/(1<<20))
	}
}
