package bootinit

import (
	"os"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// TestFilesystemUUID makes each filesystem with its mkfs and compares the
// UUID with what blkid reads from the same file.
func TestFilesystemUUID(t *testing.T) {
	testenv.Tool(t, "blkid")
	const uuid = "c0ffee00-1234-4abc-9def-00112233aabb"
	for _, tc := range []struct {
		name   string
		fstype string
		size   int64
		mkfs   []string
	}{
		{"ext4", "ext4", 8 << 20, []string{"mke2fs", "-q", "-t", "ext4", "-U", uuid}},
		{"ext2", "ext4", 8 << 20, []string{"mke2fs", "-q", "-t", "ext2", "-U", uuid}}, // same superblock
		{"xfs", "xfs", 300 << 20, []string{"mkfs.xfs", "-q", "-m", "uuid=" + uuid}},
		{"btrfs", "btrfs", 128 << 20, []string{"mkfs.btrfs", "-q", "-U", uuid}},
		{"f2fs", "f2fs", 64 << 20, []string{"mkfs.f2fs", "-q", "-U", uuid}},
		{"nilfs2", "nilfs2", 64 << 20, []string{"mkfs.nilfs2", "-q", "-B", "16"}}, // no UUID option: blkid tells
	} {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Tool(t, tc.mkfs[0])
			img := testenv.SparseFile(t, tc.size)
			testenv.Run(t, "", tc.mkfs[0], append(tc.mkfs[1:], img)...)
			want := strings.TrimSpace(testenv.Run(t, "", "blkid", "-p", "-o", "value", "-s", "UUID", img))
			f, err := os.Open(img)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			typ, got, err := FilesystemUUID(f)
			if err != nil {
				t.Fatal(err)
			}
			if typ != tc.fstype || got != want {
				t.Errorf("%s %s, blkid says %s %s", typ, got, tc.fstype, want)
			}
		})
	}
	// Nothing recognisable, and a device too small for the btrfs offset.
	img := testenv.SparseFile(t, 4096)
	f, _ := os.Open(img)
	defer f.Close()
	if typ, _, err := FilesystemUUID(f); typ != "" || err != nil {
		t.Errorf("zeros: %q %v", typ, err)
	}
}
