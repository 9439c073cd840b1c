#!/bin/sh
# Buildroot post-image script: runs "fsbench build" on the root filesystem
# tarball Buildroot has just written, with the fsbench-runner Buildroot
# built for the target. Each variant's disk image, its .bmap,
# manifest.json, bootargs.txt and bootloader file go to
# BINARIES_DIR/fsbench/<variant>/.
#
# BR2_ROOTFS_POST_IMAGE_SCRIPT="$(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"
# BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="SPEC [fsbench build flags...]"
#
# Buildroot passes BR2_ROOTFS_POST_SCRIPT_ARGS before those, to every
# post-build and post-image script: it must be empty here.
#
# The spec gets the tarball as -var rootfs_tar=PATH (FSBENCH_ROOTFS_VAR
# names another variable; set it empty to pass none), and BINARIES_DIR as
# its variable "binaries" when it declares one (FSB_VAR_binaries), for the
# kernel, device tree and bootloader files a board block's boot { } and
# contents put into the image. Buildroot exports
# HOST_DIR and TARGET_DIR, and SOURCE_DATE_EPOCH when BR2_REPRODUCIBLE is
# set, which fsbench build uses for every timestamp.
set -eu

die() {
	printf 'fsbench post-image: %s\n' "$*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: $0 BINARIES_DIR SPEC [fsbench build flags...]; set BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS to the spec"
images=$1
spec=$2
shift 2
[ -n "${HOST_DIR:-}" ] || die "HOST_DIR is not set: Buildroot runs this script after it has built the images"
[ -n "${TARGET_DIR:-}" ] || die "TARGET_DIR is not set: Buildroot runs this script after it has built the images"

fsbench=$HOST_DIR/bin/fsbench
[ -x "$fsbench" ] || die "$fsbench is missing: enable BR2_PACKAGE_HOST_FSBENCH"
[ -f "$spec" ] || die "no spec $spec (a relative path counts from $(pwd))"

rootfs=
for name in rootfs.tar rootfs.tar.gz rootfs.tar.xz rootfs.tar.zst rootfs.tar.bz2; do
	if [ -f "$images/$name" ]; then
		rootfs=$images/$name
		break
	fi
done
[ -n "$rootfs" ] || die "no rootfs.tar in $images: enable BR2_TARGET_ROOTFS_TAR"

var=${FSBENCH_ROOTFS_VAR-rootfs_tar}
if [ -n "$var" ]; then
	set -- -var "$var=$rootfs" "$@"
fi
# The runner Buildroot built; fsbench build names the missing package
# when the spec has tests and there is none.
runner=${FSBENCH_RUNNER:-$TARGET_DIR/usr/bin/fsbench-runner}
if [ -f "$runner" ]; then
	FSBENCH_RUNNER=$runner
	export FSBENCH_RUNNER
fi

# A spec that declares no variable "binaries" ignores it.
FSB_VAR_binaries=${FSB_VAR_binaries:-$images}
export FSB_VAR_binaries

out=$images/fsbench
rm -rf "$out"
"$fsbench" build -o "$out" -root "$images" "$@" "$spec"
