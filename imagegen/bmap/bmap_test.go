package bmap

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// holesSupported reports whether the filesystem under dir reports holes,
// without which every image is mapped whole and sparseness cannot be
// checked.
func holesSupported(t *testing.T, dir string) bool {
	t.Helper()
	path := create(t, dir, image{name: "probe", size: mib})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exts, err := dataExtents(f, 0, mib)
	if err != nil {
		t.Fatal(err)
	}
	return len(exts) == 0
}

// TestWriteSelfConsistent checks, without bmaptool, that each map is
// well-formed, that its checksums are right, that Stats agrees with it,
// that every written byte (zeros included) is in a listed block, that
// holes are left out, and that mapping the same image twice gives the
// same bytes.
func TestWriteSelfConsistent(t *testing.T) {
	dir := t.TempDir()
	holes := holesSupported(t, dir)
	for _, img := range testImages {
		t.Run(img.name, func(t *testing.T) {
			path := create(t, dir, img)
			doc, st := writeMap(t, path)
			p := checkSelfConsistent(t, doc, path)

			want := Stats{
				ImageSize:    img.size,
				BlockSize:    4096,
				Blocks:       (img.size + 4095) / 4096,
				MappedBlocks: p.MappedBlocks,
			}
			if st != want {
				t.Errorf("Stats = %+v, want %+v", st, want)
			}
			if p.Version != "2.0" || p.ChecksumType != "sha256" || p.BlockSize != 4096 ||
				p.ImageSize != st.ImageSize || p.BlocksCount != st.Blocks {
				t.Errorf("header = %+v, want version 2.0, sha256, 4096-byte blocks and %+v", p, st)
			}
			for _, w := range img.writes {
				for b := w.off / BlockSize; b <= (w.off+int64(len(w.data))-1)/BlockSize; b++ {
					if !p.mappedBlock(b) {
						t.Errorf("block %d holds written bytes but is not mapped", b)
					}
				}
			}
			if holes {
				var written int64
				for _, w := range img.writes {
					written += int64(len(w.data))
				}
				if written == 0 && len(p.Ranges) != 0 {
					t.Errorf("image without data maps %v", p.Ranges)
				}
				if img.name == "scattered" && st.MappedBlocks > 16 {
					t.Errorf("scattered image maps %d of %d blocks; holes were not found", st.MappedBlocks, st.Blocks)
				}
			}

			again, _ := writeMap(t, path)
			if !bytes.Equal(doc, again) {
				t.Error("two maps of the same image differ")
			}
		})
	}
}

// TestWriteEmptyFile checks that a zero-length image is refused, as
// bmaptool refuses it, and that nothing is written on error.
func TestWriteEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.img")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Write(&buf, path); err == nil {
		t.Fatal("Write of an empty file succeeded")
	}
	if buf.Len() != 0 {
		t.Errorf("Write wrote %d bytes before failing", buf.Len())
	}
}

// TestToBlocks covers the rounding that the 4096-byte block size needs on
// filesystems with smaller blocks: partial blocks count whole, and runs
// that meet or overlap after rounding become one.
func TestToBlocks(t *testing.T) {
	tests := []struct {
		name string
		in   []extent
		want []blockRange
	}{
		{"none", nil, nil},
		{"aligned", []extent{{0, 4096}, {8192, 16384}}, []blockRange{{0, 0}, {2, 3}}},
		{"unaligned", []extent{{100, 5100}}, []blockRange{{0, 1}}},
		{"partial tail", []extent{{4096, 5000}}, []blockRange{{1, 1}}},
		{"same block", []extent{{0, 1024}, {3072, 4096}}, []blockRange{{0, 0}}},
		{"adjacent after rounding", []extent{{0, 1024}, {5120, 6144}}, []blockRange{{0, 1}}},
		{"gap stays", []extent{{0, 1024}, {9216, 10240}}, []blockRange{{0, 0}, {2, 2}}},
		{"empty extent", []extent{{4096, 4096}}, nil},
	}
	for _, tt := range tests {
		if got := toBlocks(tt.in, BlockSize); !slices.Equal(got, tt.want) {
			t.Errorf("%s: toBlocks(%v) = %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestHumanSize compares with BmapHelpers.human_size; the expected
// strings were printed by bmap-tools 3.6 under Python 3.11, ties
// (1.25 -> "1.2", 3.75 -> "3.8") and its EiB quirk included.
func TestHumanSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 bytes"},
		{1, "1 byte"},
		{2, "2 bytes"},
		{511, "511 bytes"},
		{512, "0.5 KiB"},
		{1000, "1.0 KiB"},
		{1280, "1.2 KiB"},
		{3840, "3.8 KiB"},
		{10138, "9.9 KiB"},
		{1023*1024 + 973, "1024.0 KiB"},
		{1 << 20, "1.0 MiB"},
		{1<<30 - 1, "1024.0 MiB"},
		{5<<40 + 123456789, "5.0 TiB"},
		{1 << 62, "4194304.0 EiB"},
	}
	for _, tt := range tests {
		if got := humanSize(tt.in); got != tt.want {
			t.Errorf("humanSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
