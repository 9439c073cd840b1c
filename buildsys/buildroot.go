package buildsys

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// buildrootInit selects the init system the runner's start hook is for.
var buildrootInit = map[string]string{
	"busybox": "BR2_INIT_BUSYBOX", "sysvinit": "BR2_INIT_SYSV", "systemd": "BR2_INIT_SYSTEMD",
}

func buildrootVars(v *Vars, n *Needs, spec string) {
	v.Intro = "Append to a defconfig, or merge into .config with support/kconfig/merge_config.sh."
	v.add(Block{
		Why: "fsbench build reads the root filesystem tarball; buildroot-pkg's post-image script passes it to the spec as -var rootfs_tar=BINARIES_DIR/rootfs.tar.",
		Lines: []string{
			"BR2_TARGET_ROOTFS_TAR=y",
			"BR2_TARGET_ROOTFS_TAR_NONE=y",
			`BR2_ROOTFS_POST_IMAGE_SCRIPT="$(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"`,
			fmt.Sprintf("BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS=%q", spec),
		},
		Notes: []string{
			"Buildroot runs post-image scripts in its top directory: a relative spec path counts from there.",
			"Buildroot passes BR2_ROOTFS_POST_SCRIPT_ARGS first, to every script: leave it empty.",
		},
	})
	pkgs := []string{"BR2_PACKAGE_HOST_FSBENCH=y"}
	if n.HasTests {
		pkgs = append(pkgs, "BR2_PACKAGE_FSBENCH_RUNNER=y")
	}
	v.add(Block{Why: "fsbench on the build host; the runner on the target, which build also bakes into the image with the test plan.", Lines: pkgs})

	host, missing := hostPackages(func(p filesystems.Program) string { return p.BuildrootHost }, n.Filesystems())
	blk := Block{Why: "Host tools that make the filesystems: " + strings.Join(n.Filesystems(), ", ") + "."}
	for _, p := range host {
		blk.Lines = append(blk.Lines, p+"=y")
	}
	for _, t := range sortedTypes(missing) {
		blk.Notes = append(blk.Notes, fmt.Sprintf("%s: Buildroot has no host package with %s; install them on the build host (Debian: %s).",
			t, strings.Join(missing[t], ", "), debianPackage(t)))
	}
	for _, t := range n.Filesystems() {
		if ft, ok := filesystems.Lookup(t); ok && ft.Populate == filesystems.PopulateVM {
			blk.Notes = append(blk.Notes, t+" with contents: build also boots qemu-system-x86_64 with Debian's kernel on the build host to fill it.")
		}
	}
	v.add(blk)

	blk = Block{Why: "Target packages the tests use."}
	var lines []string
	for _, p := range n.Programs {
		if opt, ok := buildrootPrograms[p]; ok {
			lines = addOnce(lines, opt+"=y")
		}
	}
	for _, t := range n.TargetFS {
		for _, p := range targetPackages(t).Buildroot {
			lines = addOnce(lines, p+"=y")
		}
	}
	blk.Lines = lines
	if len(n.TargetFS) > 0 {
		blk.Notes = append(blk.Notes, "The filesystems' own tools (mkfs, fsck, nilfs2's cleaner) are for "+strings.Join(n.FSTools, ", ")+".")
	}
	v.add(blk)

	blk = Block{Why: "The init system the runner's start hook is written for."}
	for _, b := range n.Boards {
		if opt, ok := buildrootInit[b.Init]; ok {
			blk.Lines = addOnce(blk.Lines, opt+"=y")
		}
	}
	v.add(blk)

	v.add(Block{
		Why:   "Kernel: the options the spec needs, as a fragment.",
		Notes: []string{"fsbench kconfig " + spec + " > board/<board>/linux-fsbench.fragment, then list it in BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES."},
	})
}

// debianPackage names the Debian package of a type's host tools, for
// the notes about tools a build system lacks.
func debianPackage(fsType string) string {
	if t, ok := filesystems.Lookup(fsType); ok && t.Package != "" {
		return t.Package
	}
	return fsType
}

// buildrootPrograms are the Buildroot packages of the programs tests run
// on the target: real fio is measured instead of the runner's built-in
// engine, and sqlite_tps runs the image's own sqlite3.
var buildrootPrograms = map[string]string{"fio": "BR2_PACKAGE_FIO", "sqlite3": "BR2_PACKAGE_SQLITE"}
