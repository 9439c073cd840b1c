#!/bin/sh
# Buildroot post-image script: runs "fsbench build" on the root filesystem
# tarball Buildroot has just written, with the fsbench-runner Buildroot
# built for the target. Each variant's disk image, its .bmap,
# manifest.json, bootargs.txt and bootloader file go to
# BINARIES_DIR/fsbench/<variant>/.
#
#   BR2_ROOTFS_POST_IMAGE_SCRIPT="$(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"
#   BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS="SPEC [NAME=VALUE | VARFILE | -flag...]"
#
# Buildroot runs it as: post-image.sh BINARIES_DIR $(BR2_ROOTFS_POST_SCRIPT_ARGS)
# $(BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS), and gives both argument lists to
# every post-image script. So this script takes the first argument that
# ends in .hcl as the spec and leaves the arguments before it to the other
# scripts (genimage.sh's "-c CONFIG", which a board that keeps its own
# image runs beside it); genimage.sh in turn ignores the spec and every
# argument that does not start with a dash. After the spec: NAME=VALUE
# sets a spec variable, a file is a var-file, and from the first -flag on
# the arguments go to fsbench build as they are (genimage.sh refuses
# those: beside it, use the first two).
#
# The build system's files reach the spec through two variables, the same
# way for Buildroot and Yocto: FSB_VAR_rootfs_tar (the tarball) and
# FSB_VAR_binaries (BINARIES_DIR, for kernels, device trees and boot
# loaders). A spec uses those it declares; fsbench build says in its log
# which it ignored. FSBENCH_ROOTFS_VAR names another variable for the
# tarball (empty: none). Buildroot exports HOST_DIR and TARGET_DIR, and
# SOURCE_DATE_EPOCH when BR2_REPRODUCIBLE is set, which fsbench build uses
# for every timestamp.
set -eu

die() {
	printf 'fsbench post-image: %s\n' "$*" >&2
	exit 1
}

usage="usage: $0 BINARIES_DIR [OTHER SCRIPTS' ARGUMENTS] SPEC.hcl [NAME=VALUE | VARFILE]... [-flag...]; set BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS to the spec"
[ $# -ge 2 ] || die "$usage"
images=$1
shift
[ -n "${HOST_DIR:-}" ] || die "HOST_DIR is not set: Buildroot runs this script after it has built the images"
[ -n "${TARGET_DIR:-}" ] || die "TARGET_DIR is not set: Buildroot runs this script after it has built the images"

# The arguments, in order: those before the spec are the other scripts'
# (genimage's -c CONFIG is noted); those after it, fsbench build's.
spec=
genimage=
flags=
n=$#
i=0
while [ "$i" -lt "$n" ]; do
	a=$1
	shift
	i=$((i + 1))
	if [ -z "$spec" ]; then
		case $a in
		*.hcl) spec=$a ;;
		-c) [ "$i" -lt "$n" ] && genimage=$1 ;;
		esac
		continue
	fi
	case $a in
	-*) flags=yes ;;
	esac
	if [ -n "$flags" ]; then
		set -- "$@" "$a"
		continue
	fi
	case $a in
	*=*) set -- "$@" -var "$a" ;;
	*)
		[ -f "$a" ] || die "$a is neither NAME=VALUE nor a var-file (a relative path counts from $(pwd)); -flags come last: $usage"
		set -- "$@" -var-file "$a"
		;;
	esac
done
[ -n "$spec" ] || die "no spec among the arguments: $usage"
[ -f "$spec" ] || die "no spec $spec (a relative path counts from $(pwd))"
if [ -n "$genimage" ]; then
	printf 'fsbench post-image: genimage.sh runs too (%s): its images stay in %s, fsbench'"'"'s go to %s/fsbench\n' \
		"$genimage" "$images" "$images"
fi

fsbench=$HOST_DIR/bin/fsbench
[ -x "$fsbench" ] || die "$fsbench is missing: enable BR2_PACKAGE_HOST_FSBENCH"

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
	case $var in
	*[!A-Za-z0-9_]*) die "FSBENCH_ROOTFS_VAR=$var is not a variable name" ;;
	esac
	export "FSB_VAR_$var=$rootfs"
fi
FSB_VAR_binaries=${FSB_VAR_binaries:-$images}
export FSB_VAR_binaries

# The runner Buildroot built; fsbench build names the missing package
# when the spec has tests and there is none.
runner=${FSBENCH_RUNNER:-$TARGET_DIR/usr/bin/fsbench-runner}
if [ -f "$runner" ]; then
	FSBENCH_RUNNER=$runner
	export FSBENCH_RUNNER
fi

printf 'fsbench post-image: the spec may declare these variables: %s%s\n' \
	"${var:+$var=$rootfs, }" "binaries=$FSB_VAR_binaries"

out=$images/fsbench
rm -rf "$out"
"$fsbench" build -o "$out" -root "$images" "$@" "$spec"
