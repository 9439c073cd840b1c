package buildsys

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// yoctoLayers names the layer of every recipe of a program the tests
// run (yoctoPrograms) that is not in openembedded-core; a filesystem's
// recipes name theirs in the catalogue.
var yoctoLayers = map[string]string{"fio": "meta-oe"}

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
	native, missing := hostPackages(func(p filesystems.Program) string { return p.YoctoNative }, n.Filesystems())
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
		for _, p := range targetPackages(t).Yocto {
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
	for _, t := range n.Filesystems() {
		if l := targetPackages(t).YoctoLayer; l != "" && (slices.Contains(n.TargetFS, t) || hasNative(t)) {
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
