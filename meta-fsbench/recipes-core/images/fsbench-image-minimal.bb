SUMMARY = "core-image-minimal that tests its own storage on its first boots"
DESCRIPTION = "The example of meta-fsbench: core-image-minimal, turned by \
fsbench into one disk image per candidate root filesystem of \
files/fsbench-qemu.fsb.hcl, each with the runner and its test plan."

require recipes-core/images/core-image-minimal.bb

inherit fsbench-image

IMAGE_FSTYPES:append = " fsbench"
FSBENCH_SPEC := "${THISDIR}/files/fsbench-qemu.fsb.hcl"
FSBENCH_BUILD_ARGS = "-var arch=${FSBENCH_ARCH}"
FSBENCH_NATIVE_DEPENDS = "btrfs-tools-native e2fsprogs-native"
# What the spec's tests run on the target: sqlite_tps the image's sqlite3,
# fsck_time and power_loss the filesystems' own mkfs and fsck.
IMAGE_INSTALL:append = " sqlite3 btrfs-tools e2fsprogs-e2fsck e2fsprogs-mke2fs"

# The architectures fsbench builds runners for, in QEMU machines.
COMPATIBLE_HOST = "(x86_64|aarch64).*-linux.*"
