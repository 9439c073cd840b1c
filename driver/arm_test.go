package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/arch"
)

// TestArmInQEMU runs a small board of each ARM architecture end to end:
// Debian's arm64 or armhf (armmp-lpae) kernel and busybox, the runner for
// it, qemu-system-aarch64 or qemu-system-arm.
func TestArmInQEMU(t *testing.T) {
	for _, a := range []arch.Arch{arch.ARM64, arch.ARM} {
		t.Run(string(a), func(t *testing.T) { armInQEMU(t, a) })
	}
}

func armInQEMU(t *testing.T, a arch.Arch) {
	for _, tool := range []string{"qemu-system-" + a.QEMU(), "apt-get", "fakeroot"} {
		testenv.Tool(t, tool)
	}
	if err := debpkg.CheckArch(context.Background(), a.Debian()); errors.Is(err, debpkg.ErrForeignArchNotConfigured) {
		testenv.Missing(t, err.Error())
	}
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, string(a)+".fsb.hcl")
	os.WriteFile(path, []byte(fmt.Sprintf(qemuBoardSpec, a, "ttyAMA0,115200n8", "none", "", "", "", "f2fs")), 0o644)
	s, p := loadSpec(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	job := testJob(t, s, p, filepath.Join(dir, "out"))
	job.Runner, job.HelperRunner = testbin.Runner(t, a), testbin.Runner(t, "")
	job.QEMU.Accel = "tcg"
	o := runJob(t, ctx, job)[p.Variants[0].Name]
	if o == nil {
		return
	}
	count := map[string]int{}
	for _, r := range o.Summary.Results {
		if r.Status != "ok" {
			t.Errorf("%s %s/%s: %s %s", r.Recipe, r.Name, r.Case, r.Status, r.Error)
		}
		count[r.Recipe]++
		if r.Recipe == "boot_time" && (value(r, "host_boot") <= 0 || value(r, "target_boot") <= 0) {
			t.Errorf("boot %d: %v", r.Iteration, r.Metrics)
		}
		if r.Recipe == "fio" && value(r, "write_bytes") != 8<<20 {
			t.Errorf("fio wrote %v bytes", value(r, "write_bytes"))
		}
	}
	if count["boot_time"] != 3 || count["fio"] != 1 || count["fsbench"] != 1 {
		t.Errorf("results %v", count)
	}
	if o.Summary.Results[0].Attrs["kernel"] == "" || o.Summary.Results[0].Attrs["machine"] != "qemu-system-"+a.QEMU()+" virt virtio" {
		t.Errorf("attrs %v", o.Summary.Results[0].Attrs)
	}
}
