package buildsys

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// buildrootInit selects the init system the runner's start hook is for.
var buildrootInit = map[string]string{
	"busybox": "BR2_INIT_BUSYBOX", "sysvinit": "BR2_INIT_SYSV", "systemd": "BR2_INIT_SYSTEMD",
}

func buildrootVars(v *Vars, n *Needs, spec string, defconfig map[string]string) {
	v.Intro = "Append to a defconfig, or merge into .config with support/kconfig/merge_config.sh."
	v.add(postImageBlock(spec, defconfig))
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

// fsbenchPostImage is buildroot-pkg's post-image script, as a defconfig
// names it.
const fsbenchPostImage = "$(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/post-image.sh"

// postImageBlock is the tarball and the post-image step, merged with what
// the board's defconfig already runs after its images (genimage.sh, say):
// Buildroot gives both argument lists to every post-image script, and
// fsbench's script skips genimage's "-c CONFIG", as genimage.sh ignores
// the spec.
func postImageBlock(spec string, defconfig map[string]string) Block {
	scripts, args := fsbenchPostImage, spec
	b := Block{
		Why: "fsbench build reads the root filesystem tarball, which buildroot-pkg's post-image script gives the spec as its variable rootfs_tar (FSB_VAR_rootfs_tar; BINARIES_DIR as binaries).",
		Notes: []string{
			"Buildroot runs post-image scripts in its top directory: a relative spec path counts from there.",
			"After the spec, NAME=VALUE sets a spec variable and a file is a var-file, which genimage.sh ignores; a -flag goes to fsbench build, and genimage.sh refuses it.",
		},
	}
	// A defconfig merged before keeps its lines as they are.
	if old := defconfig["BR2_ROOTFS_POST_IMAGE_SCRIPT"]; strings.Contains(old, "board/fsbench/post-image.sh") {
		scripts = old
	} else if old != "" {
		scripts = old + " " + fsbenchPostImage
		b.Notes = append(b.Notes, "The board's post-image scripts run first, as before; fsbench's images go beside theirs, to BINARIES_DIR/fsbench.")
	}
	if old := defconfig["BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS"]; len(strings.Fields(spec)) > 0 && slices.Contains(strings.Fields(old), strings.Fields(spec)[0]) {
		args = old
	} else if old != "" {
		args = old + " " + spec
	}
	if defconfig == nil {
		b.Notes = append(b.Notes, "A defconfig that already sets BR2_ROOTFS_POST_IMAGE_SCRIPT (genimage.sh, say): run buildvars with -defconfig FILE, which prints these lines merged with it.")
	}
	b.Lines = []string{
		"BR2_TARGET_ROOTFS_TAR=y",
		"BR2_TARGET_ROOTFS_TAR_NONE=y",
		fmt.Sprintf("BR2_ROOTFS_POST_IMAGE_SCRIPT=%q", scripts),
		fmt.Sprintf("BR2_ROOTFS_POST_IMAGE_SCRIPT_ARGS=%q", args),
	}
	return b
}

// ParseDefconfig reads the KEY=VALUE settings of a Buildroot defconfig,
// the quotes of a string value removed; comments are skipped.
func ParseDefconfig(src string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") || !strings.HasPrefix(k, "BR2_") {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		out[k] = v
	}
	return out
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

// MergeDefconfig returns the defconfig src with v's settings in it: a
// symbol src already sets (or leaves "is not set") gets v's line in its
// place, a later setting of it goes, and v's other lines follow at the
// end, under their reasons. The result sets each symbol once, as
// Buildroot's savedefconfig would, so that check-dotconfig finds every
// line in the configuration.
func MergeDefconfig(src string, v *Vars) string {
	ours := map[string]string{}
	for _, b := range v.Blocks {
		for _, l := range b.Lines {
			if k, _, ok := strings.Cut(l, "="); ok {
				ours[k] = l
			}
		}
	}
	placed := map[string]bool{}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		k := defconfigSymbol(l)
		switch {
		case k == "" || (ours[k] == "" && !placed[k]):
			out = append(out, l)
		case placed[k]:
			// set again further down: the line in place wins
		default:
			out = append(out, ours[k])
		}
		if k != "" {
			placed[k] = true
		}
	}
	var tail []string
	for _, b := range v.Blocks {
		var lines []string
		for _, l := range b.Lines {
			if k, _, _ := strings.Cut(l, "="); !placed[k] {
				lines = append(lines, l)
				placed[k] = true
			}
		}
		if len(lines) > 0 {
			tail = append(tail, "", "# fsbench: "+b.Why)
			tail = append(tail, lines...)
		}
	}
	return strings.Join(append(out, tail...), "\n") + "\n"
}

// defconfigSymbol is the symbol a defconfig line sets, "BR2_X=..." or
// "# BR2_X is not set"; "" for any other line.
func defconfigSymbol(l string) string {
	l = strings.TrimSpace(l)
	if rest, ok := strings.CutPrefix(l, "# "); ok {
		if k, ok := strings.CutSuffix(rest, " is not set"); ok && strings.HasPrefix(k, "BR2_") {
			return k
		}
		return ""
	}
	if k, _, ok := strings.Cut(l, "="); ok && strings.HasPrefix(k, "BR2_") {
		return k
	}
	return ""
}
