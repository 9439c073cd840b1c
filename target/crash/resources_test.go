package crash

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMemAvailable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(p, []byte("MemTotal:  1000 kB\nMemFree:  10 kB\nMemAvailable:  2048 kB\n"), 0o644)
	if n, err := memAvailable(p); err != nil || n != 2048<<10 {
		t.Errorf("memAvailable = %d, %v", n, err)
	}
	os.WriteFile(p, []byte("MemTotal:  1000 kB\n"), 0o644)
	if _, err := memAvailable(p); err == nil {
		t.Error("a meminfo without MemAvailable was read")
	}
}

func TestWorkerCount(t *testing.T) {
	for _, c := range []struct {
		parallel, cpus int
		fs             string
		want           int
	}{{0, 2, "ext4", 2}, {0, 1, "xfs", 1}, {0, 64, "f2fs", maxWorkers}, {3, 1, "ext4", 3}, {0, 4, "btrfs", 1}, {4, 4, "btrfs", 1}} {
		if got, why := workerCount(c.parallel, c.cpus, c.fs); got != c.want || why == "" {
			t.Errorf("workerCount(%d, %d, %s) = %d (%s), want %d", c.parallel, c.cpus, c.fs, got, why, c.want)
		}
	}
}
