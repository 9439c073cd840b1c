package imagegen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/imagegen/bmap"
)

// blockMapLayout places partitions where the runs the build hashes as
// each partition lands are not the runs of the finished image: a
// partition at an offset that is not a multiple of the map's 4096-byte
// block, whose first block a raw region written after it shares; two
// partitions full of data end to end (their runs join in the map); and an
// MBR with logical partitions (the table's EBRs land between partitions
// after they are placed).
const blockMapLayout = `
image "disk" {
  table = "mbr"
  size  = "64MiB"
  align = "512B"
  raw "spl" {
    offset = "1KiB"
    file   = "spl.bin"
  }
  partition "boot" {
    offset = "33KiB"
    size   = "12MiB"
    filesystem { type = "vfat" }
    contents { dir = "rootfs/etc" }
  }
  partition "one" {
    size  = "1MiB"
    image = "full-1.img"
  }
  partition "two" {
    size  = "1MiB"
    image = "full-2.img"
  }
  partition "root" {
    size    = "24MiB"
    logical = true
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
  partition "tail" {
    size    = "2MiB"
    logical = true
    image   = "full-1.img"
  }
}
`

// TestBuildBlockMapIsTheImagesMap: the map the build writes, partly from
// sums taken while the partitions landed, is byte for byte the map of the
// finished image written from scratch.
func TestBuildBlockMapIsTheImagesMap(t *testing.T) {
	needFS(t, "vfat", "ext4")
	specPath := writeSpec(t, blockMapLayout)
	dir := filepath.Dir(specPath)
	for name, data := range map[string][]byte{
		"spl.bin":    bytes.Repeat([]byte("spl!"), 8192), // up to the boot partition
		"full-1.img": bytes.Repeat([]byte{0xa5, 1, 2, 3}, 1<<18),
		"full-2.img": bytes.Repeat([]byte{0x5a, 4, 5, 6}, 1<<18),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, m, out := build(t, specPath, 315532800)
	image := filepath.Join(out, m.Images[0].File)
	got, err := os.ReadFile(image + ".bmap")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := bmap.Write(&want, image); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the build's block map differs from the finished image's map:\n--- build\n%s\n--- image\n%s", got, want.Bytes())
	}
}
