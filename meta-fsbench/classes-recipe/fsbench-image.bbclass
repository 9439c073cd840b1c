# fsbench-image: the "fsbench" image type. An image recipe inherits this
# class (or lists it in IMAGE_CLASSES), adds "fsbench" to IMAGE_FSTYPES and
# names its spec:
#
#   inherit fsbench-image
#   IMAGE_FSTYPES:append = " fsbench"
#   FSBENCH_SPEC := "${THISDIR}/files/board.fsb.hcl"
#
# do_image_fsbench runs "fsbench build" on the image's root filesystem
# tarball, which the spec receives as its variable rootfs_tar
# (FSB_VAR_rootfs_tar), with the fsbench-runner the image installs.
# DEPLOY_DIR_IMAGE reaches it as its variable binaries (FSB_VAR_binaries):
# a spec uses those of the two it declares, as with Buildroot, and the
# build's log says which it ignored. fsbench adds the compiled test
# plan and the runner's start hook to each variant's root filesystem, and
# writes per variant the disk image, its .bmap, manifest.json, bootargs.txt,
# fstab and bootloader file into IMGDEPLOYDIR/IMAGE_NAME.fsbench/<variant>/,
# which do_image_complete deploys with the image's other files
# (IMAGE_LINK_NAME.fsbench links to it).

# The spec, an absolute path: the type fails at build time without one.
FSBENCH_SPEC ??= ""
# The spec variable that receives the tarball; empty passes none.
FSBENCH_ROOTFS_VAR ??= "rootfs_tar"
# More flags for fsbench build, e.g. "-var arch=${FSBENCH_ARCH} -compress zst".
FSBENCH_BUILD_ARGS ??= ""
# Native recipes with the mkfs tools the spec's filesystems need
# ("fsbench buildvars -for yocto SPEC" lists them).
FSBENCH_NATIVE_DEPENDS ??= "e2fsprogs-native"
FSBENCH_RUNNER_PACKAGE ??= "fsbench-runner"

# The spec's name for the target architecture (board "arch"), for specs
# that take it as a variable; empty for an architecture fsbench has no
# runner for.
FSBENCH_ARCH ??= "${@fsbench_arch(d)}"
# fsbench's caches (tool versions, input digests, Debian packages), kept
# in the build directory rather than the build user's home.
FSBENCH_CACHE ??= "${TOPDIR}/fsbench-cache"

def fsbench_arch(d):
    arch = d.getVar('TARGET_ARCH')
    return {'x86_64': 'x86_64', 'aarch64': 'arm64', 'arm': 'arm', 'riscv64': 'riscv64'}.get(arch, '')

IMAGE_TYPEDEP:fsbench = "tar"
IMAGE_INSTALL:append = "${@bb.utils.contains('IMAGE_FSTYPES', 'fsbench', ' ${FSBENCH_RUNNER_PACKAGE}', '', d)}"

do_image_fsbench[depends] += "fsbench-native:do_populate_sysroot attr-native:do_populate_sysroot \
    ${@' '.join(p + ':do_populate_sysroot' for p in (d.getVar('FSBENCH_NATIVE_DEPENDS') or '').split())}"
# The files a spec reads from DEPLOY_DIR_IMAGE (kernel, device trees,
# boot loader, firmware) are deployed by other recipes' do_deploy: the
# image waits for each of them, as wic waits for those its .wks reads.
# "fsbench buildvars -for yocto SPEC" lists them. FSBENCH_BOOT_DEPENDS is
# its older name.
FSBENCH_DEPLOY_DEPENDS ??= "virtual/kernel:do_deploy"
FSBENCH_BOOT_DEPENDS ??= ""
do_image_fsbench[depends] += "${FSBENCH_DEPLOY_DEPENDS} ${FSBENCH_BOOT_DEPENDS}"
do_image_fsbench[file-checksums] += "${@'%s:True' % d.getVar('FSBENCH_SPEC') if d.getVar('FSBENCH_SPEC') else ''}"

# fsbench stages the tree in a fakeroot session of its own (the build
# host's fakeroot, see conf/layer.conf): PSEUDO_UNLOAD keeps pseudo out of
# it, as image_types_wic does for wic. The time of every file and id comes
# from the root filesystem's SOURCE_DATE_EPOCH, as for the other types.
IMAGE_CMD:fsbench () {
	if [ -z "${FSBENCH_SPEC}" ]; then
		bbfatal "fsbench-image: set FSBENCH_SPEC to the spec (NAME.fsb.hcl) of this image's disks"
	fi
	runner="${IMAGE_ROOTFS}${bindir}/fsbench-runner"
	if [ ! -f "$runner" ]; then
		bbfatal "fsbench-image: $runner is missing: install ${FSBENCH_RUNNER_PACKAGE}"
	fi
	out="${IMGDEPLOYDIR}/${IMAGE_NAME}.fsbench"
	rm -rf "$out"
	if [ -n "${FSBENCH_ROOTFS_VAR}" ]; then
		case "${FSBENCH_ROOTFS_VAR}" in
		*[!A-Za-z0-9_]*) bbfatal "fsbench-image: FSBENCH_ROOTFS_VAR=${FSBENCH_ROOTFS_VAR} is not a variable name" ;;
		esac
		export "FSB_VAR_${FSBENCH_ROOTFS_VAR}=${IMGDEPLOYDIR}/${IMAGE_NAME}.tar"
	fi
	case " ${FSBENCH_BUILD_ARGS} " in
	*"arch= "*) bbfatal "fsbench-image: FSBENCH_BUILD_ARGS passes an empty architecture: fsbench has no runner for TARGET_ARCH ${TARGET_ARCH}" ;;
	esac
	PSEUDO_UNLOAD=1 SOURCE_DATE_EPOCH="$(stat -c '%Y' "${IMAGE_ROOTFS}")" FSBENCH_RUNNER="$runner" CI=1 \
		FSBENCH_CACHE="${FSBENCH_CACHE}" \
		FSB_VAR_binaries="${DEPLOY_DIR_IMAGE}" \
		fsbench build -o "$out" -root "${IMGDEPLOYDIR}" -root "${DEPLOY_DIR_IMAGE}" ${FSBENCH_BUILD_ARGS} "${FSBENCH_SPEC}"
}
