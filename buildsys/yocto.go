package buildsys

import (
	"fmt"
	"sort"
	"strings"
)

// yoctoNativeTools maps each host tool fsbench build runs to the native
// recipe that provides it in the image's sysroot. Only do_fetch reaches
// the network and the build host's own tools are hidden (HOSTTOOLS), so a
// tool without a native recipe (xfsprogs and nilfs-utils have none) cannot
// run inside bitbake.
var yoctoNativeTools = map[string]string{
	"mke2fs": "e2fsprogs-native", "debugfs": "e2fsprogs-native", "e2fsck": "e2fsprogs-native",
	"mkfs.btrfs": "btrfs-tools-native", "btrfs": "btrfs-tools-native",
	"mkfs.f2fs": "f2fs-tools-native", "sload.f2fs": "f2fs-tools-native", "fsck.f2fs": "f2fs-tools-native",
	"mkfs.vfat": "dosfstools-native", "fsck.vfat": "dosfstools-native", "mcopy": "mtools-native",
	"mksquashfs": "squashfs-tools-native", "unsquashfs": "squashfs-tools-native",
	"mkfs.erofs": "erofs-utils-native", "fsck.erofs": "erofs-utils-native",
	"mkfs.xfs": "", "xfs_db": "", "xfs_repair": "",
	"mkfs.nilfs2": "",
}

// yoctoTargetTools are the packages with a filesystem's mkfs and checker.
var yoctoTargetTools = map[string][]string{
	"ext2":     {"e2fsprogs-e2fsck", "e2fsprogs-mke2fs"},
	"ext3":     {"e2fsprogs-e2fsck", "e2fsprogs-mke2fs"},
	"ext4":     {"e2fsprogs-e2fsck", "e2fsprogs-mke2fs"},
	"btrfs":    {"btrfs-tools"},
	"f2fs":     {"f2fs-tools"},
	"xfs":      {"xfsprogs"},
	"nilfs2":   {"nilfs-utils"},
	"vfat":     {"dosfstools"},
	"squashfs": {"squashfs-tools"},
	"erofs":    {"erofs-utils"},
}

// yoctoLayers names the layer of every recipe above that is not in
// openembedded-core.
var yoctoLayers = map[string]string{
	"f2fs-tools": "meta-oe", "f2fs-tools-native": "meta-oe", "fio": "meta-oe",
	"xfsprogs": "meta-filesystems", "nilfs-utils": "meta-filesystems",
}

// yoctoInit is the INIT_MANAGER of each init system the runner's start
// hook is written for.
var yoctoInit = map[string]string{"busybox": "mdev-busybox", "sysvinit": "sysvinit", "systemd": "systemd"}

func yoctoVars(v *Vars, n *Needs, spec string) {
	v.Intro = "The first block goes into the image recipe, the others into it or local.conf."
	v.add(Block{
		Why: "The image recipe: meta-fsbench's class adds the fsbench image type, which runs fsbench build on the image's rootfs tarball (-var rootfs_tar=...) and deploys the disk images, .bmap, bootargs and manifest; it also installs fsbench-runner.",
		Lines: []string{
			"inherit fsbench-image",
			`IMAGE_FSTYPES:append = " fsbench"`,
			fmt.Sprintf("FSBENCH_SPEC := %q", spec),
		},
		Notes: []string{`FSBENCH_SPEC is read at build time: an absolute path, or "${THISDIR}/files/board.fsb.hcl" in the image recipe (fsbench buildvars -spec-path).`},
	})
	var used []string
	native, missing := hostPackages(yoctoNativeTools, n.Filesystems())
	blk := Block{Why: "Native tools that make the filesystems: " + strings.Join(n.Filesystems(), ", ") + "."}
	if len(native) > 0 {
		blk.Lines = []string{fmt.Sprintf("FSBENCH_NATIVE_DEPENDS = %q", strings.Join(native, " "))}
		used = append(used, native...)
	}
	for _, t := range sortedTypes(missing) {
		blk.Notes = append(blk.Notes, fmt.Sprintf("%s: no native recipe provides %s, and bitbake hides the build host's tools; this type cannot be built inside bitbake yet.",
			t, strings.Join(missing[t], ", ")))
	}
	v.add(blk)

	var pkgs []string
	for _, p := range n.Programs {
		if pkg, ok := yoctoPrograms[p]; ok {
			pkgs = addOnce(pkgs, pkg)
		}
	}
	for _, t := range n.TargetFS {
		for _, p := range yoctoTargetTools[t] {
			pkgs = addOnce(pkgs, p)
		}
	}
	blk = Block{Why: "Target packages the tests use."}
	if len(pkgs) > 0 {
		blk.Lines = []string{fmt.Sprintf("IMAGE_INSTALL:append = %q", " "+strings.Join(pkgs, " "))}
		used = append(used, pkgs...)
	}
	if len(n.TargetFS) > 0 {
		blk.Notes = append(blk.Notes, "The filesystems' own tools (mkfs, fsck, nilfs2's cleaner) are for "+strings.Join(n.FSTools, ", ")+".")
	}
	v.add(blk)

	blk = Block{Why: "local.conf: the init system the runner's start hook is written for, and meta-fsbench's kernel fragment for linux-yocto."}
	for _, b := range n.Boards {
		if m, ok := yoctoInit[b.Init]; ok {
			blk.Lines = addOnce(blk.Lines, fmt.Sprintf("INIT_MANAGER = %q", m))
		}
	}
	blk.Lines = append(blk.Lines, `DISTRO_FEATURES:append = " fsbench"`)
	blk.Notes = []string{"For this spec's own options: fsbench kconfig " + spec + " > fsbench.cfg, added to SRC_URI by a linux-yocto bbappend in your layer."}
	v.add(blk)

	layers := map[string]bool{}
	for _, p := range used {
		if l := yoctoLayers[p]; l != "" {
			layers[l] = true
		}
	}
	if len(layers) > 0 {
		var names []string
		for l := range layers {
			names = append(names, l)
		}
		sort.Strings(names)
		v.add(Block{Why: "Layers beyond openembedded-core and meta-fsbench.",
			Notes: []string{"Add " + strings.Join(names, " and ") + " from meta-openembedded."}})
	}
}

// yoctoPrograms are the Yocto packages of the programs tests run on the
// target (fio is in meta-oe).
var yoctoPrograms = map[string]string{"fio": "fio", "sqlite3": "sqlite3"}
