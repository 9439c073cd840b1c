package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
)

// TestQuiesceWritesOutDirtyData leaves a file dirty on a filesystem whose
// journal commits every minute, then quiesces: the file's bytes must be
// on the device afterwards, not only in the page cache.
func TestQuiesceWritesOutDirtyData(t *testing.T) {
	part := loopPart(t, "ext4", 64<<20)
	part.Data = "commit=60"
	e := &step.Env{Part: part, Log: t.Logf}
	dir, err := e.MountPart(part)
	if err != nil {
		t.Fatal(err)
	}
	defer linux.Unmount(dir)
	marker := bytes.Repeat([]byte("fsbench-quiesce-marker "), 4096/23+1)[:4096]
	if err := os.WriteFile(filepath.Join(dir, "dirty"), marker, 0o644); err != nil {
		t.Fatal(err)
	}
	e.Quiesce()
	// The loop device writes through the image's page cache, so reading
	// the image sees what reached the device.
	img, err := os.ReadFile(filepath.Join(filepath.Dir(part.Mountpoint), "ext4.img"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(img, marker) {
		t.Error("the file's data had not reached the device after Quiesce")
	}
}
