package filesystems

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
)

// TestF2FSLayoutMatchesMkfs runs mkfs.f2fs over a grid of sizes and section
// sizes, including the non-monotonic stretch of -s 16 and the 16MiB file
// that crashes mkfs.f2fs 1.15.0, and demands that the model predicts every
// outcome.
func TestF2FSLayoutMatchesMkfs(t *testing.T) {
	testenv.Tools(t, "mkfs.f2fs")
	img := filepath.Join(t.TempDir(), "f2fs.img")
	sizes := []int64{16, 40, 50, 51, 52, 60, 98, 100, 142, 144, 200, 238, 240, 264, 300,
		424, 456, 520, 552, 584, 700, 1032, 1064, 1500, 2047, 2048}
	for _, sps := range []int64{1, 2, 3, 4, 8, 16} {
		for _, mib := range sizes {
			for _, extra := range []int64{0, 37 * 4096} {
				size := mib*units.MiB + extra
				want := newF2FSLayout(size, sps, 1, 0)
				got := mkfsF2FSWorks(t, img, size, sps)
				if got != (want.failure == "") {
					t.Errorf("-s %d on %d bytes: mkfs.f2fs succeeded=%t, model says %q", sps, size, got, want.failure)
				}
			}
		}
	}
}

func mkfsF2FSWorks(t *testing.T, img string, size, sps int64) bool {
	t.Helper()
	must(t, os.RemoveAll(img))
	f, err := os.Create(img)
	must(t, err)
	must(t, f.Truncate(size))
	must(t, f.Close())
	return exec.Command("mkfs.f2fs", "-q", "-f", "-s", fmt.Sprint(sps), "-z", "1", img).Run() == nil
}

func TestF2FSLayoutKnownCases(t *testing.T) {
	for _, c := range []struct {
		mib, sps int64
		ok       bool
	}{
		{16, 1, false}, {51, 1, false}, {52, 1, true},
		{98, 2, false}, {100, 2, true},
		{456, 16, true}, {584, 16, false}, {1064, 16, true},
	} {
		if l := newF2FSLayout(c.mib*units.MiB, c.sps, 1, 0); (l.failure == "") != c.ok {
			t.Errorf("%dMiB -s %d: failure %q, want ok=%t", c.mib, c.sps, l.failure, c.ok)
		}
	}
}
