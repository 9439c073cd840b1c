// Package readback lists what a filesystem image holds, so that tests can
// prove that building an image kept the bytes, modes, owners, symlinks,
// hard links, device nodes and xattrs of what was put in.
//
// List reads one filesystem image (a partition extracted from a disk
// image) and returns a Listing: every entry sorted by path, with its type,
// permission bits (setuid, setgid and sticky included), owner, size and
// SHA-256 of a regular file's data, symlink target, device numbers,
// hard-link group and xattrs. ListDir lists a source directory the same
// way, from lstat, so that the two compare with Listing.Diff. Expect turns
// a source listing into what a filesystem of a given type can hold (FAT:
// names, sizes and data; symlinks become copies of their targets, as mcopy
// makes them).
//
// # How each filesystem is read
//
// Offline tools are preferred; an image is mounted, read-only through a
// read-only loop device, only where no offline tool reads everything:
//
//   - ext2, ext3, ext4: debugfs (e2fsprogs), without root. `ls -p` walks
//     the directories (inode, mode, owner, size per entry), `stat` gives
//     device numbers, fast symlink targets and xattr names, `dump` the
//     data of regular files and slow symlinks, `ea_get -f` the exact bytes
//     of each xattr. `rdump` is not used: it skips device nodes and FIFOs,
//     copies hard links as separate files, drops xattrs, and applies the
//     mode before the owner, so that chown clears the setuid bit.
//   - squashfs: `unsquashfs -d DIR` as root, which keeps owners, setuid
//     bits, device nodes, hard links and xattrs; the tree is then listed
//     like a source directory. Without root it can neither chown nor mknod,
//     so List returns ErrNeedsRoot. (`unsquashfs -lln` shows owners without
//     extracting but no data, hard links or xattrs.)
//   - vfat: `mcopy -s` (mtools) into a temporary directory, with a UTF-8
//     locale so that long names decode. FAT has no owners, modes, symlinks,
//     hard links, device nodes or xattrs: a vfat listing holds names,
//     types (file or directory), sizes and SHA-256 only, and every entry
//     says so in Entry.Holds.
//   - btrfs: a read-only loop mount. `btrfs restore -S -x -m` (6.2) keeps
//     owners, modes, symlinks and xattrs, but writes every hard link as a
//     separate file and skips device nodes and FIFOs.
//   - xfs: a read-only loop mount with norecovery and nouuid; extracting
//     with xfs_db is impractical.
//   - erofs: a read-only loop mount. `fsck.erofs --extract` (1.5) writes
//     hard links as separate files, drops xattrs and, as root, applies the
//     mode before the owner, which clears setuid bits.
//   - f2fs, nilfs2: no offline reader exists and this project's host
//     kernels have no driver: List returns ErrNeedsGuest. Reading them
//     needs a VM.
//
// Mounting needs root (ErrNeedsRoot otherwise). Every mount point is a
// fresh temporary directory; the filesystem is unmounted before List
// returns, on error, on cancellation and on panic alike, and the mount
// point is removed only once it is empty, never recursively.
package readback
