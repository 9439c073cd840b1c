package buildsys

// Checks of buildroot-pkg that need no Buildroot tree, so that CI runs
// them: the files Buildroot requires of a BR2_EXTERNAL, the golang-package
// pitfalls, the defconfigs against `fsbench buildvars`, the shell scripts,
// and one real run of the post-image script as Buildroot runs it.

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/runplan"
)

const (
	brDir       = "../buildroot-pkg"
	brSpec      = brDir + "/board/fsbench/qemu/fsbench.fsb.hcl"
	brUBootSpec = brDir + "/board/fsbench/qemu/uboot.fsb.hcl"
	brPostImage = brDir + "/board/fsbench/post-image.sh"
)

func TestBuildrootExternalTree(t *testing.T) {
	desc := readFile(t, brDir+"/external.desc")
	if !regexp.MustCompile(`(?m)^name: FSBENCH$`).MatchString(desc) {
		t.Errorf("external.desc: want name: FSBENCH (BR2_EXTERNAL_FSBENCH_PATH), got\n%s", desc)
	}
	if !strings.Contains(readFile(t, brDir+"/external.mk"), "include $(sort $(wildcard $(BR2_EXTERNAL_FSBENCH_PATH)/package/*/*.mk))") {
		t.Error("external.mk does not include the packages' .mk files")
	}
	config := readFile(t, brDir+"/Config.in")
	pkgs, err := filepath.Glob(brDir + "/package/*")
	if err != nil || len(pkgs) == 0 {
		t.Fatalf("no packages: %v", err)
	}
	names := map[string]bool{}
	for _, dir := range pkgs {
		p := filepath.Base(dir)
		names[p] = true
		upper := strings.ToUpper(strings.ReplaceAll(p, "-", "_"))
		mk := readFile(t, filepath.Join(dir, p+".mk"))
		for _, kc := range []string{"Config.in", "Config.in.host"} {
			path := filepath.Join(dir, kc)
			if _, err := os.Stat(path); err != nil {
				continue
			}
			if !strings.Contains(config, `source "$BR2_EXTERNAL_FSBENCH_PATH/package/`+p+"/"+kc+`"`) {
				t.Errorf("Config.in does not source package/%s/%s", p, kc)
			}
			// golang-package needs Go for the architecture.
			if !regexp.MustCompile(`depends on BR2_PACKAGE_HOST_GO_(TARGET|HOST)_ARCH_SUPPORTS`).MatchString(readFile(t, path)) {
				t.Errorf("package/%s/%s does not depend on BR2_PACKAGE_HOST_GO_*_ARCH_SUPPORTS", p, kc)
			}
		}
		if !strings.Contains(mk, "golang-package))") {
			t.Errorf("package/%s does not use the golang-package infrastructure", p)
		}
		if regexp.MustCompile(`(?m)^(HOST_)?` + upper + `_INSTALL_BINS`).MatchString(mk) {
			t.Errorf("package/%s sets _INSTALL_BINS, which pkg-golang.mk rejects", p)
		}
		if confMake(mk, upper+"_SITE_METHOD") != "local" {
			if _, err := os.Stat(filepath.Join(dir, p+".hash")); err != nil {
				t.Errorf("package/%s downloads its source but has no %s.hash", p, p)
			}
		}
		if strings.Contains(mk, "host-golang-package") && confMake(mk, upper+"_GOMOD") != "" && confMake(mk, "HOST_"+upper+"_GOMOD") == "" {
			t.Errorf("package/%s: HOST_%s_GOMOD is unset; the host variant does not inherit %s_GOMOD", p, upper, upper)
		}
	}
	for _, want := range []string{"fsbench", "fsbench-runner"} {
		if !names[want] {
			t.Errorf("no package %s", want)
		}
	}
	if !strings.Contains(readFile(t, brDir+"/package/fsbench/fsbench.mk"), "$(eval $(host-golang-package))") {
		t.Error("package fsbench has no host variant (host-fsbench)")
	}
}

// confMake returns the value of `NAME = value` in a makefile.
func confMake(text, name string) string {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*[:+?]?=\s*(.*)$`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}

// Each defconfig enables what `fsbench buildvars -for buildroot -defconfig`
// says its spec needs, the post-image lines as buildvars merges them with
// the defconfig's own (genimage.sh), and every file it names in the tree
// exists.
func TestBuildrootDefconfigs(t *testing.T) {
	for _, c := range []struct{ defconfig, spec, args, fragment string }{
		{"fsbench_qemu_x86_64_defconfig", "fsbench.fsb.hcl", "arch=x86_64", "linux-x86_64.fragment"},
		{"fsbench_qemu_aarch64_defconfig", "fsbench.fsb.hcl", "arch=arm64", "linux-aarch64.fragment"},
		{"fsbench_qemu_aarch64_uboot_defconfig", "uboot.fsb.hcl", "", "linux-aarch64-uboot.fragment"},
	} {
		text := readFile(t, brDir+"/configs/"+c.defconfig)
		lines := map[string]bool{}
		for _, l := range strings.Split(text, "\n") {
			lines[l] = true
		}
		spec := "$(BR2_EXTERNAL_FSBENCH_PATH)/board/fsbench/qemu/" + c.spec
		var vars []string
		if c.args != "" {
			vars = []string{c.args}
		}
		v, err := BuildVars("buildroot", loadPlanFile(t, brDir+"/board/fsbench/qemu/"+c.spec, vars...),
			VarsOptions{SpecPath: strings.TrimSpace(spec + " " + c.args), Defconfig: ParseDefconfig(text)})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range v.Blocks {
			for _, l := range b.Lines {
				if !lines[l] {
					t.Errorf("%s lacks %s (fsbench buildvars -for buildroot -defconfig)", c.defconfig, l)
				}
			}
		}
		if !strings.Contains(text, "board/fsbench/qemu/"+c.fragment) {
			t.Errorf("%s does not use the kernel fragment %s", c.defconfig, c.fragment)
		}
		for _, m := range regexp.MustCompile(`\$\(BR2_EXTERNAL_FSBENCH_PATH\)/([^" ]+)`).FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join(brDir, m[1])); err != nil {
				t.Errorf("%s names %s: %v", c.defconfig, m[1], err)
			}
		}
	}
}

func TestShellScripts(t *testing.T) {
	scripts := []string{brPostImage, brDir + "/board/fsbench/qemu/start-qemu.sh", "../scripts/gen-yocto-gomod.sh"}
	for _, s := range scripts {
		fi, err := os.Stat(s)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", s)
		}
		shell := "sh"
		if strings.HasPrefix(readFile(t, s), "#!/usr/bin/env bash") {
			shell = "bash"
		}
		if out, err := exec.Command(shell, "-n", s).CombinedOutput(); err != nil {
			t.Errorf("%s -n %s: %v\n%s", shell, s, err, out)
		}
	}
	testenv.Tool(t, "shellcheck")
	// From the top directory, where the scripts source scripts/lib.sh.
	args := []string{"-x"}
	for _, s := range scripts {
		args = append(args, strings.TrimPrefix(s, "../"))
	}
	cmd := exec.Command("shellcheck", args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// TestPostImageScript runs the post-image script as Buildroot does: with
// BINARIES_DIR and the defconfig's arguments on its command line, HOST_DIR
// and TARGET_DIR in the environment, a rootfs.tar in BINARIES_DIR, fsbench
// in HOST_DIR/bin and the runner in TARGET_DIR/usr/bin. The ext4 variant's
// image must hold the tarball's files, the runner and the test plan.
func TestPostImageScript(t *testing.T) {
	for _, tool := range []string{"mke2fs", "debugfs", "e2fsck", "fakeroot"} {
		testenv.Tool(t, tool)
	}
	dir := t.TempDir()
	host, target, images := filepath.Join(dir, "host"), filepath.Join(dir, "target"), filepath.Join(dir, "images")
	for _, d := range []string{host + "/bin", target + "/usr/bin", images} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildFsbench(t, host+"/bin")
	runner, err := os.ReadFile(testbin.Runner(t, arch.X86_64))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target+"/usr/bin/fsbench-runner", runner, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTar(t, images+"/rootfs.tar", map[string]string{"etc/hostname": "buildroot\n", "etc/os-release": "NAME=Buildroot\n"})

	spec, err := filepath.Abs(brSpec)
	if err != nil {
		t.Fatal(err)
	}
	// Buildroot gives every post-image script both argument lists: the
	// board's genimage.sh arguments come first, then the spec, a variable,
	// a var-file and a flag for fsbench build. The var-file's tarball wins
	// over the script's FSB_VAR_rootfs_tar; the variable wins over the
	// var-file's arch.
	other := filepath.Join(images, "other.tar")
	writeTar(t, other, map[string]string{"etc/hostname": "from-var-file\n"})
	varFile := filepath.Join(dir, "board.fsbvars")
	if err := os.WriteFile(varFile, []byte(fmt.Sprintf("arch = \"arm64\"\nrootfs_tar = %q\n", other)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(brPostImage, images, "-c", "board/acme/genimage.cfg", spec, "arch=x86_64", varFile, "-variant", "ext4")
	cmd.Env = append(os.Environ(), "HOST_DIR="+host, "TARGET_DIR="+target, "BINARIES_DIR="+images, "CI=1")
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("post-image.sh: %v\n%s", err, log)
	}
	if !strings.Contains(string(log), "genimage.sh runs too (board/acme/genimage.cfg)") {
		t.Errorf("genimage's configuration is not noted:\n%s", log)
	}

	out := images + "/fsbench/ext4"
	for _, f := range []string{"disk.img", "disk.img.bmap", "manifest.json", "bootargs.txt", "payload.tar"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("no %s: %v", f, err)
		}
	}
	if _, err := os.Stat(images + "/fsbench/f2fs"); err == nil {
		t.Error("-variant ext4 was not passed through: f2fs was built too")
	}
	root := extractPartition(t, out, "rootfs")
	for path, want := range map[string]string{"/etc/hostname": "from-var-file\n", "/usr/bin/fsbench-runner": string(runner)} {
		got, err := exec.Command("debugfs", "-R", "cat "+path, root).Output()
		if err != nil || string(got) != want {
			t.Errorf("%s in the image: %d bytes (%v), want the %d of the input", path, len(got), err, len(want))
		}
	}
	plan, err := exec.Command("debugfs", "-R", "cat /etc/fsbench/plan.json", root).Output()
	if err != nil || !strings.Contains(string(plan), runplan.Format) {
		t.Errorf("no compiled plan in the image (%v): %.200s", err, plan)
	}
}

// writeTar writes a rootfs tarball, owned by root, as Buildroot's is.
func writeTar(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, d := range []string{"etc/", "usr/", "usr/bin/"} {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + d, Typeflag: tar.TypeDir, Mode: 0o755}); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// extractPartition copies a partition out of the variant's image, where
// the manifest says it is, for debugfs.
func extractPartition(t *testing.T, variantDir, name string) string {
	t.Helper()
	var m struct {
		Images []struct {
			File       string
			Partitions []struct {
				Name         string
				Offset, Size int64
			}
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, variantDir+"/manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	for _, img := range m.Images {
		for _, p := range img.Partitions {
			if p.Name != name {
				continue
			}
			src, err := os.Open(filepath.Join(variantDir, img.File))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			buf := make([]byte, p.Size)
			if _, err := src.ReadAt(buf, p.Offset); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), name+".img")
			if err := os.WriteFile(out, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("no partition %s in the manifest", name)
	return ""
}
