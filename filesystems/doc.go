// Package filesystems is the catalogue of the filesystem types fsbench can
// build and benchmark: what each mkfs tool accepts, the limits the real tool
// enforces (checked against the Debian 12 tools: e2fsprogs 1.47.0,
// btrfs-progs 6.2, f2fs-tools 1.15.0, xfsprogs 6.1.0, nilfs-tools 2.2.9,
// dosfstools 4.2 with mtools 4.0.32, squashfs-tools 4.5.1, erofs-utils 1.5),
// the mount options each kernel filesystem knows, and the exact command lines
// a build will run.
//
// The spec validator and `fsbench plan` call Resolve so that a spec which
// passes validation does not fail later inside mkfs, and so that a reviewer
// sees every command before anything is built. Image generation executes the
// returned commands after substituting the placeholders below.
//
// This package must never run a tool and never touch the disk: it only
// computes. The tests are the exception; they run every tool they describe
// on sparse temporary files to prove the limits and the determinism claimed
// here.
//
// Placeholders in Command.Argv and Command.Env, substituted by the executor:
//
//	{image}           the output file: a sparse file of Spec.Size that already
//	                  exists, or, for squashfs and erofs, the file the tool creates
//	{root}            the staged content directory (may be empty); for a type
//	                  with SetsInodes, possibly the spec's contents directory
//	                  itself, read in place
//	{root_entries}    the top-level entries of {root}, sorted, one argument
//	                  each; a step using it is skipped when {root} is empty
//	{protofile}       an xfs protofile describing {root} (mkfs.xfs -p)
//	{debugfs_script}  a debugfs script setting atime, ctime, mtime and crtime of
//	                  every path in {root} to {epoch} (see ext.go for why), and
//	                  the owner where {root} on disk has another one
//	{xfs_mode_fixups} xfs_db arguments ("-c" "path /p" "-c" "write core.mode M"
//	                  per staged entry with the sticky bit, which protofiles
//	                  cannot express); a step using it is skipped when none has it
//	{epoch}           SOURCE_DATE_EPOCH, seconds since 1970
//
// Owners, modes and timestamps inside the image come from {root}: the stager
// must clamp mtimes to {epoch} and set owners before a populate step runs,
// unless a later step sets them (SetsInodes).
package filesystems
