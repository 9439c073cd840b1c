// Package initramfs writes the initramfs archives that fsbench hands to QEMU
// together with a Debian kernel. The kernel's disk and filesystem drivers are
// modules, so before the root filesystem can be mounted a small early
// userspace (an init, /dev/console and the module files) has to be unpacked
// from an archive into the kernel's rootfs.
//
// The archive format is the one the kernel's initramfs unpacker reads
// (Documentation/driver-api/early-userspace/buffer-format.rst): cpio "newc"
// (SVR4 without CRC, magic 070701), every header 110 ASCII hex bytes, the
// name NUL-terminated and padded to a multiple of 4, the data padded to a
// multiple of 4, ended by a "TRAILER!!!" entry. NewGzipWriter wraps the same
// stream in gzip, which the kernel decompresses itself.
//
// Archives are reproducible: entries appear in the order the caller adds
// them, inode numbers are sequential, owner is root, mtime is a fixed epoch
// (0 unless SetModTime says otherwise) and the gzip header carries no time
// and no name. The same calls therefore give the same bytes, so an initramfs
// can be cached and named by its hash.
//
// Build assembles the archive that fsbench boots with: bootinit as /init,
// the module files (stored decompressed) and their list in load order.
//
// Parents are never added implicitly: a path's parent directory must have
// been added with Dir first (top-level names need nothing). That keeps the
// archive order exactly the caller's order and makes every directory's mode
// an explicit decision.
//
// What this package must never do:
//   - read host metadata into the archive: modes, owners and times come from
//     the caller or are fixed, never from the host (FileFrom copies only the
//     bytes of a host file);
//   - write an entry the kernel could unpack outside its rootfs: paths are
//     stored relative ("dev/console"), "." and ".." components are rejected;
//   - write a second entry for the same path or a name equal to the trailer,
//     which would silently change what the kernel unpacks.
package initramfs
