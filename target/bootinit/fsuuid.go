package bootinit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// superblock says where a filesystem keeps its magic and its UUID, for
// root=UUID=. Offsets are from the start of the device, from each
// filesystem's on-disk format definition in the kernel sources.
type superblock struct {
	fstype   string
	magicOff int64
	magic    []byte
	uuidOff  int64
}

var superblocks = []superblock{
	// struct ext4_super_block at 1024: s_magic 0xEF53 at 0x38, s_uuid at 0x68.
	{"ext4", 1024 + 0x38, []byte{0x53, 0xef}, 1024 + 0x68},
	// struct xfs_dsb at 0: sb_magicnum "XFSB", sb_uuid at 32.
	{"xfs", 0, []byte("XFSB"), 32},
	// struct btrfs_super_block at 64 KiB: magic "_BHRfS_M" at 0x40, fsid at 0x20.
	{"btrfs", 65536 + 0x40, []byte("_BHRfS_M"), 65536 + 0x20},
	// struct f2fs_super_block at 1024: magic 0xF2F52010, uuid at 108.
	{"f2fs", 1024, []byte{0x10, 0x20, 0xf5, 0xf2}, 1024 + 108},
	// struct nilfs_super_block at 1024: s_magic 0x3434 at 6, s_uuid at 152.
	{"nilfs2", 1024 + 6, []byte{0x34, 0x34}, 1024 + 152},
}

// FilesystemUUID returns the type and UUID (lower case, 8-4-4-4-12) of
// the filesystem on r, or an empty type when none of ext2/3/4, xfs,
// btrfs, f2fs or nilfs2 is recognised. ext2 and ext3 report "ext4": the
// superblock is the same and ext4 mounts them.
func FilesystemUUID(r io.ReaderAt) (fstype, uuid string, err error) {
	for _, sb := range superblocks {
		magic := make([]byte, len(sb.magic))
		if _, err := r.ReadAt(magic, sb.magicOff); err != nil {
			if err == io.EOF {
				continue // device smaller than this superblock offset
			}
			return "", "", err
		}
		if !bytes.Equal(magic, sb.magic) {
			continue
		}
		u := make([]byte, 16)
		if _, err := r.ReadAt(u, sb.uuidOff); err != nil {
			return "", "", err
		}
		return sb.fstype, uuidString(u), nil
	}
	return "", "", nil
}

// uuidString formats a UUID stored as 16 big-endian bytes, as Linux
// filesystems store theirs (unlike GPT GUIDs).
func uuidString(b []byte) string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x", binary.BigEndian.Uint32(b), binary.BigEndian.Uint16(b[4:]),
		binary.BigEndian.Uint16(b[6:]), b[8:10], b[10:16])
}
