package bmap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// bmaptool returns the path of bmaptool (bmap-tools 3.6 is the reference
// these tests were written against) or skips the test.
func bmaptool(t *testing.T) string {
	t.Helper()
	path := testenv.Tool(t, "bmaptool")
	return path
}

// run runs bmaptool and returns its standard output; err is non-nil when
// it exits non-zero, and includes its standard error.
func run(tool string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("bmaptool %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// TestMatchesBmaptoolCreate proves the map is exactly bmaptool create's:
// same bytes, hence the same ranges, counts, range checksums, comments
// and whitespace, and the same BmapFileChecksum.
func TestMatchesBmaptoolCreate(t *testing.T) {
	tool := bmaptool(t)
	dir := t.TempDir()
	for _, img := range testImages {
		t.Run(img.name, func(t *testing.T) {
			path := create(t, dir, img)
			// Ours first: bmaptool fsyncs the image, and the map must
			// already be right while the data is still only in the page
			// cache, as it is right after an image is built.
			ours, _ := writeMap(t, path)
			theirs, err := run(tool, "create", path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(ours, theirs) {
				return
			}
			po, pt := parse(t, ours), parse(t, theirs)
			if pt.BlockSize != BlockSize {
				t.Skipf("bmaptool uses the filesystem's %d-byte blocks here; this package always uses %d", pt.BlockSize, BlockSize)
			}
			t.Errorf("map differs from bmaptool create's\nours:   %+v\ntheirs: %+v\nfirst differing line:\n%s", po, pt, firstDiff(ours, theirs))
		})
	}
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d\nours:   %q\ntheirs: %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d vs %d lines)", len(la), len(lb))
}

// writeMapFile writes the map of imgPath next to it and returns its path.
func writeMapFile(t *testing.T, imgPath string) string {
	t.Helper()
	doc, _ := writeMap(t, imgPath)
	path := strings.TrimSuffix(imgPath, ".img") + ".bmap"
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBmaptoolCopy proves bmaptool copy accepts the map (its version,
// BmapFileChecksum and every range checksum, the partial last block's
// included) and that copying only the mapped blocks into a regular file
// reproduces the image exactly, holes and size included.
func TestBmaptoolCopy(t *testing.T) {
	tool := bmaptool(t)
	dir := t.TempDir()
	for _, img := range testImages {
		t.Run(img.name, func(t *testing.T) {
			path := create(t, dir, img)
			mapPath := writeMapFile(t, path)
			dest := filepath.Join(dir, img.name+".dest")
			if _, err := run(tool, "copy", "--bmap", mapPath, path, dest); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("copy differs from the image (%d bytes vs %d)", len(got), len(want))
			}
		})
	}
}

// TestBmaptoolCopyRejectsCorruptImage proves the range checksums are
// checked: one flipped byte inside a mapped range, after the map was
// written, makes bmaptool copy fail. The offsets are the start of an
// unaligned write, the last byte of a partial last block, and the middle
// of an image that is all data.
func TestBmaptoolCopyRejectsCorruptImage(t *testing.T) {
	tool := bmaptool(t)
	dir := t.TempDir()
	tests := []struct {
		img int // index into testImages
		off int64
	}{
		{0, 1*mib + 100},
		{0, testImages[0].size - 1},
		{2, testImages[2].size / 2},
	}
	for _, tt := range tests {
		img := testImages[tt.img]
		t.Run(fmt.Sprintf("%s@%d", img.name, tt.off), func(t *testing.T) {
			img.name = fmt.Sprintf("%s-%d", img.name, tt.off)
			path := create(t, dir, img)
			mapPath := writeMapFile(t, path)
			flip(t, path, tt.off)
			_, err := run(tool, "copy", "--bmap", mapPath, path, filepath.Join(dir, img.name+".dest"))
			if err == nil {
				t.Fatal("bmaptool copy accepted an image with a flipped byte")
			}
			if !strings.Contains(err.Error(), "checksum mismatch for blocks range") {
				t.Errorf("bmaptool copy failed for another reason than the range checksum: %v", err)
			}
		})
	}
}

// TestBmaptoolCopyRejectsTamperedMap proves BmapFileChecksum covers the
// whole file, comments included, the way bmaptool checks it.
func TestBmaptoolCopyRejectsTamperedMap(t *testing.T) {
	tool := bmaptool(t)
	dir := t.TempDir()
	path := create(t, dir, testImages[0])
	mapPath := writeMapFile(t, path)
	doc, err := os.ReadFile(mapPath)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(doc, []byte("Size of a block"), []byte("size of a block"), 1)
	if bytes.Equal(tampered, doc) {
		t.Fatal("comment to tamper with not found")
	}
	if err := os.WriteFile(mapPath, tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = run(tool, "copy", "--bmap", mapPath, path, filepath.Join(dir, "tampered.dest"))
	if err == nil {
		t.Fatal("bmaptool copy accepted a map edited after it was written")
	}
	if !strings.Contains(err.Error(), "checksum mismatch for bmap file") {
		t.Errorf("bmaptool copy failed for another reason than the file checksum: %v", err)
	}
}

// flip inverts the byte at off in the file at path.
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
