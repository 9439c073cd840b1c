// Package stage builds the directory tree that a filesystem builder turns
// into an image: the contents of a rootfs tarball (Buildroot's rootfs.tar,
// Yocto's .tar, .tar.gz, .tar.bz2, .tar.xz, .tar.zst) or of a directory,
// plus single files from the spec, with the owners, modes, symlinks, hard
// links, device nodes, FIFOs and extended attributes the image must hold,
// and every mtime and atime clamped to SOURCE_DATE_EPOCH. It needs no root.
//
// # How
//
// A Tree lives in a fakeroot session: a faked daemon, started by Build and
// stopped by Close, records owners, modes, device numbers and xattrs, and
// every program that Tree.Command starts joins it through LD_PRELOAD. In
// the session GNU tar writes the tree and setfattr its xattrs; mke2fs -d,
// mkfs.btrfs --rootdir, sload.f2fs, mksquashfs and mkfs.erofs read it there
// and see root-owned files, setuid bits, device nodes and
// security.capability, although on disk every file belongs to the build
// user and a device node is an empty file.
//
// One live session rather than `fakeroot -s STATE`, then `fakeroot -i
// STATE` per command: fakeroot 1.31 keeps xattrs only in faked's memory
// (its state file has dev, ino, mode, uid, gid, nlink and rdev) and hides
// the xattrs on disk, so a second session sees none at all. faked still
// writes the state file when the session ends (Tree.State).
//
// GNU tar writes and Go only reads: libfakeroot wraps libc, and Go makes its
// system calls itself, so a Go program in a session stays the build user
// (getuid is not 0, lchown fails with EPERM). Go reads the tarball or the
// directory, checks every name and streams a normalised archive into `tar
// --extract` in the session: names that climb out are refused with a clear
// error before tar sees them, and parents the archive only implies become
// 0755 root:root instead of depending on the host's umask. Single files are
// a second archive, written the same way.
//
// The xattrs are left out of that archive and set afterwards by setfattr,
// because GNU tar cannot set them under fakeroot 1.31 (see setXattrs), and
// files whose mode gives their owner no read bit get a readable mode on disk
// (see makeReadable).
//
// Root is not special: as root the tree is staged in a session too, so CI
// (root) runs the code developers run; an untrusted tarball never creates a
// real device node, a real security.* xattr or a file owned by another user
// on the build host; and the image does not depend on the order in which
// the host's filesystem lists xattrs. The tests build one ext4 image as root
// and as nobody and compare the bytes.
//
// A filesystem that keeps only names, file data and mtimes (FAT) needs
// none of this: with Input.NoSession the same normalised archive is
// written to disk by this process (directories and regular files only;
// symlinks, devices and FIFOs exist only in the list Entries returns, for
// the caller to refuse), without faked, tar or find.
//
// Host tools: fakeroot and GNU tar, except with NoSession; setfattr
// (Debian's attr) when the contents have xattrs; xz or zstd for tarballs
// compressed with them; find and stat for Entries.
//
// # Never
//
// This package must never write outside the staging directory: tarball
// members with ".." are refused, absolute names are taken as relative to the
// root (as tar does), no member and no single file is placed beneath a
// symlink, and a single file replaces a symlink rather than following it. It
// must never run a shell: every program gets an argument vector. It must
// never let a tool read the tree outside the session, where owners, devices
// and xattrs are missing: Command refuses programs that LD_PRELOAD cannot
// reach (static binaries, Go programs), and code that describes the tree (an
// xfs protofile) uses Tree.Entries, never os.Lstat; a NoSession tree is
// for tools that read nothing a session would add. It must never drop
// something it cannot stage: POSIX ACLs are refused.
package stage
