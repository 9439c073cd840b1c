package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxSize is the runner's budget: it goes into every image, and boards
// have small root filesystems. 4.3-4.5 MiB stripped since it reads the
// storage's registers and counts every writing test's I/O (4.0 before);
// the budget leaves room for a few more recipes, not for a new kind of
// dependency.
const maxSize = 5 << 20

func TestStrippedRunnerFitsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds the runner four times")
	}
	for _, arch := range []string{"amd64", "arm64", "arm", "riscv64"} {
		out := filepath.Join(t.TempDir(), "fsbench-runner-"+arch)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
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
