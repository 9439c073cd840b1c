package buildsys

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/spec"
)

// yoctoLayers names the layer of every recipe of a program the tests
// run (yoctoPrograms) that is not in openembedded-core; a filesystem's
// recipes name theirs in the catalogue.
var yoctoLayers = map[string]string{"fio": "meta-oe"}

// yoctoLayerDepends are the layers a meta-openembedded layer needs
// (its LAYERDEPENDS).
var yoctoLayerDepends = map[string][]string{"meta-filesystems": {"meta-oe", "meta-python", "meta-networking"}}

// yoctoInit is the INIT_MANAGER of each init system the runner's start
// hook is written for.
var yoctoInit = map[string]string{"busybox": "mdev-busybox", "sysvinit": "sysvinit", "systemd": "systemd"}

// Where Yocto settings go.
const (
	inImageRecipe = "image recipe"
	inLocalConf   = "local.conf"
)

func yoctoVars(v *Vars, n *Needs, specPath string, inputs []spec.InputRef) {
	v.Intro = "Each block says where it goes: the image recipe, or conf/local.conf (or your distro's or machine's configuration). Nothing here is distro-wide."
	v.add(Block{Place: inImageRecipe,
		Why: "meta-fsbench's class adds the fsbench image type, which runs fsbench build on the image's rootfs tarball (the spec's variable rootfs_tar, through FSB_VAR_rootfs_tar; DEPLOY_DIR_IMAGE as binaries) and deploys the disk images, .bmap, bootargs and manifest beside the image's others (wic's included); it also installs fsbench-runner.",
		Lines: []string{
			"inherit fsbench-image",
			`IMAGE_FSTYPES:append = " fsbench"`,
			fmt.Sprintf("FSBENCH_SPEC := %q", specPath),
		},
		Notes: []string{`FSBENCH_SPEC is read at build time: an absolute path, or "${THISDIR}/files/board.fsb.hcl" in the image recipe (fsbench buildvars -spec-path).`},
	})
	var used []string
	native, missing := hostPackages(func(p filesystems.Program) string { return p.YoctoNative }, n.Filesystems())
	blk := Block{Place: inImageRecipe, Why: "Native tools that make the filesystems: " + strings.Join(n.Filesystems(), ", ") + "."}
	if len(native) > 0 {
		blk.Lines = []string{fmt.Sprintf("FSBENCH_NATIVE_DEPENDS = %q", strings.Join(native, " "))}
		used = append(used, native...)
	}
	for _, t := range sortedTypes(missing) {
		blk.Notes = append(blk.Notes, fmt.Sprintf("%s: no native recipe provides %s, and bitbake hides the build host's tools; this type cannot be built inside bitbake yet.",
			t, strings.Join(missing[t], ", ")))
	}
	v.add(blk)
	v.add(deployBlock(inputs))
	blk, pkgs := yoctoTargetBlock(n)
	used = append(used, pkgs...)
	v.add(blk)
	v.add(yoctoLocalBlock(n, specPath, used))
}

// yoctoTargetBlock is the packages the tests run on the target.
func yoctoTargetBlock(n *Needs) (Block, []string) {
	var pkgs []string
	for _, p := range n.Programs {
		if pkg, ok := yoctoPrograms[p]; ok {
			pkgs = addOnce(pkgs, pkg)
		}
	}
	for _, t := range n.TargetFS {
		for _, p := range targetPackages(t).Yocto {
			pkgs = addOnce(pkgs, p)
		}
	}
	blk := Block{Place: inImageRecipe, Why: "Target packages the tests use."}
	if len(pkgs) > 0 {
		blk.Lines = []string{fmt.Sprintf("IMAGE_INSTALL:append = %q", " "+strings.Join(pkgs, " "))}
	}
	if len(n.TargetFS) > 0 {
		blk.Notes = append(blk.Notes, "The filesystems' own tools (mkfs, fsck, nilfs2's cleaner) are for "+strings.Join(n.FSTools, ", ")+".")
	}
	for _, b := range n.Boards {
		if m, ok := yoctoInit[b.Init]; ok {
			blk.Notes = addOnce(blk.Notes, fmt.Sprintf("The runner's start hook is written for the board's init, %s: the image must boot with it (INIT_MANAGER = %q in the distro's configuration, which fsbench does not set).", b.Init, m))
		}
	}
	return blk, pkgs
}

// yoctoLocalBlock is what goes outside the image recipe: the layers the
// recipes come from, and the kernel's configuration.
func yoctoLocalBlock(n *Needs, specPath string, used []string) Block {
	blk := Block{Place: inLocalConf, Why: "The kernel and the layers."}
	blk.Notes = append(blk.Notes, "The kernel's options for this spec: fsbench kconfig "+specPath+
		" > fsbench.cfg, added to SRC_URI by a bbappend of your kernel recipe in your layer (or DISTRO_FEATURES fsbench for meta-fsbench's own fragment with linux-yocto).")
	layers := map[string]bool{}
	for _, p := range used {
		if l := yoctoLayers[p]; l != "" {
			layers[l] = true
		}
	}
	for _, t := range n.Filesystems() {
		if l := targetPackages(t).YoctoLayer; l != "" && (slices.Contains(n.TargetFS, t) || hasNative(t)) {
			layers[l] = true
		}
	}
	if len(layers) > 0 {
		names := make([]string, 0, len(layers))
		for l := range layers {
			names = append(names, l)
		}
		for _, l := range names {
			for _, dep := range yoctoLayerDepends[l] {
				if !layers[dep] {
					layers[dep] = true
					names = append(names, dep)
				}
			}
		}
		sort.Strings(names)
		blk.Notes = append(blk.Notes, "bblayers.conf: add "+strings.Join(names, ", ")+" from meta-openembedded.")
	}
	return blk
}

// deployTasks are the tasks that deploy the files a board's spec reads
// from DEPLOY_DIR_IMAGE, by the file's name.
var deployTasks = []struct {
	match func(name string) bool
	task  string
}{
	{func(n string) bool {
		return slices.Contains([]string{"Image", "zImage", "bzImage", "uImage", "fitImage", "vmlinux", "vmlinuz", "Image.gz"}, n) ||
			strings.HasSuffix(n, ".dtb") || strings.HasSuffix(n, ".dtbo")
	}, "virtual/kernel:do_deploy"},
	{func(n string) bool {
		l := strings.ToLower(n)
		return strings.HasPrefix(l, "u-boot") || l == "mlo" || strings.Contains(l, "spl") || l == "boot.bin" ||
			l == "flash.bin" || l == "idbloader.img" || l == "boot.scr"
	}, "virtual/bootloader:do_deploy"},
	// meta-raspberrypi's firmware, config.txt and cmdline.txt.
	{func(n string) bool {
		return strings.HasPrefix(n, "start") && strings.HasSuffix(n, ".elf") || strings.HasPrefix(n, "fixup") && strings.HasSuffix(n, ".dat") ||
			n == "bootcode.bin" || n == "bootfiles"
	}, "rpi-bootfiles:do_deploy"},
	{func(n string) bool { return n == "config.txt" }, "rpi-config:do_deploy"},
	{func(n string) bool { return n == "cmdline.txt" }, "rpi-cmdline:do_deploy"},
	{func(n string) bool { return strings.HasPrefix(n, "bl31") || strings.HasPrefix(n, "fip") }, "virtual/trusted-firmware-a:do_deploy"},
	{func(n string) bool { return strings.HasPrefix(n, "tee") || strings.HasPrefix(n, "optee") }, "optee-os:do_deploy"},
}

// deployBlock makes the image wait for the tasks that deploy the files
// the spec reads, as wic waits for those its .wks reads: otherwise
// bitbake may run the image before the file is there. The rootfs tarball
// is the image's own.
func deployBlock(inputs []spec.InputRef) Block {
	blk := Block{Place: inImageRecipe, Why: "The tasks that deploy the files the spec reads, which the image must wait for."}
	tasks := []string{"virtual/kernel:do_deploy"}
	var unknown []string
	for _, in := range inputs {
		if in.Role == "contents-tar" || in.Role == "contents-dir" {
			continue
		}
		name := path.Base(in.Path)
		found := false
		for _, d := range deployTasks {
			if d.match(name) {
				tasks, found = addOnce(tasks, d.task), true
				break
			}
		}
		if !found {
			unknown = addOnce(unknown, in.Path)
		}
	}
	blk.Lines = []string{fmt.Sprintf("FSBENCH_DEPLOY_DEPENDS = %q", strings.Join(tasks, " "))}
	if len(unknown) > 0 {
		blk.Notes = append(blk.Notes, "Which recipes deploy "+strings.Join(unknown, ", ")+"? Add their do_deploy to FSBENCH_DEPLOY_DEPENDS.")
	}
	return blk
}

// yoctoPrograms are the Yocto packages of the programs tests run on the
// target (fio is in meta-oe).
var yoctoPrograms = map[string]string{"fio": "fio", "sqlite3": "sqlite3"}

// hasNative says whether a native recipe provides one of the host tools
// of fsType: the type's layer is then needed for the build.
func hasNative(fsType string) bool {
	t, ok := filesystems.Lookup(fsType)
	if !ok {
		return false
	}
	for _, tool := range t.Tools {
		if p, _ := t.Program(tool); p.YoctoNative != "" {
			return true
		}
	}
	return false
}
