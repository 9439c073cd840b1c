package userland

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/recipes"
	"github.com/fsbench/fsbench/wire/arch"
)

// checkers are the programs the filesystems' checks and re-formats need.
var checkers = []string{"e2fsck", "mke2fs", "mkfs.ext4", "fsck.f2fs", "btrfs", "xfs_repair"}

// fetchTools returns the tools layer for arch from the test cache, or
// skips when apt cannot provide it.
func fetchTools(t *testing.T, a arch.Arch, programs ...string) *Tools {
	t.Helper()
	testenv.Tool(t, "apt-get")
	cache := os.Getenv("FSBENCH_CACHE")
	if cache == "" {
		cache = os.TempDir() + "/fsbench-test-cache"
	}
	log := logrus.New()
	log.Out = io.Discard
	tools, err := FetchTools(context.Background(), log, cache, a, programs)
	switch {
	case errors.Is(err, debpkg.ErrUnreachable):
		testenv.Missing(t, "the Debian mirror: "+err.Error())
	case errors.Is(err, debpkg.ErrForeignArchNotConfigured):
		testenv.Missing(t, err.Error())
	case err != nil:
		t.Fatal(err)
	}
	return tools
}

// layerEntry is one member of a written layer.
type layerEntry struct {
	hdr  *tar.Header
	data []byte
}

func readLayer(t *testing.T, b []byte) map[string]layerEntry {
	t.Helper()
	out := map[string]layerEntry{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		out[strings.TrimSuffix(h.Name, "/")] = layerEntry{h, data}
	}
}

// extractLayer writes the layer into dir as tar would.
func extractLayer(t *testing.T, layer map[string]layerEntry, dir string) {
	t.Helper()
	names := make([]string, 0, len(layer))
	for n := range layer {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		h, p := layer[n].hdr, filepath.Join(dir, n)
		var err error
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, os.FileMode(h.Mode))
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			err = os.WriteFile(p, layer[n].data, os.FileMode(h.Mode))
		default:
			t.Fatalf("%s: unexpected type %c", n, h.Typeflag)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// resolveLayer follows p through the layer's symlinks to the regular file
// it names, or "".
func resolveLayer(layer map[string]layerEntry, p string) string {
	parts, done := splitPath(p), ""
	for hops := 0; len(parts) > 0 && hops < 40; {
		next := path.Join(done, parts[0])
		parts = parts[1:]
		e, ok := layer[next]
		switch {
		case !ok:
			return ""
		case e.hdr.Typeflag == tar.TypeSymlink:
			hops++
			target := e.hdr.Linkname
			if !path.IsAbs(target) {
				target = path.Join("/", done, target)
			}
			parts, done = append(splitPath(target), parts...), ""
		default:
			done = next
		}
	}
	if e, ok := layer[done]; ok && e.hdr.Typeflag == tar.TypeReg && len(parts) == 0 {
		return done
	}
	return ""
}

// TestToolsRunInAChroot runs each program from the extracted layer with
// chroot, so that nothing of the host's own libraries or loader can stand
// in for a missing one, and makes an ext4 filesystem with the layer's
// mke2fs that the host's e2fsck must find clean.
func TestToolsRunInAChroot(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("runs amd64 programs; the host is " + runtime.GOARCH)
	}
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root to chroot into the layer")
	}
	tools := fetchTools(t, "x86_64", checkers...)
	var buf bytes.Buffer
	if err := tools.WriteTar(&buf, 315532800); err != nil {
		t.Fatal(err)
	}
	layer := readLayer(t, buf.Bytes())
	dir := t.TempDir()
	extractLayer(t, layer, dir)
	// The programs open /dev/null; the layer has no /dev.
	os.Mkdir(filepath.Join(dir, "dev"), 0o755)
	if out, err := exec.Command("mknod", "-m", "666", filepath.Join(dir, "dev/null"), "c", "1", "3").CombinedOutput(); err != nil {
		t.Fatalf("mknod: %v\n%s", err, out)
	}

	for _, c := range []struct {
		prog string
		args []string
		want string
	}{
		{"e2fsck", []string{"-V"}, "e2fsck 1."},
		{"mke2fs", []string{"-V"}, "mke2fs"},
		{"mkfs.ext4", []string{"-V"}, "mke2fs"},
		{"fsck.f2fs", []string{"-V"}, "fsck.f2fs"},
		{"btrfs", []string{"--version"}, "btrfs-progs"},
		{"xfs_repair", []string{"-V"}, "xfs_repair version"},
	} {
		at := tools.Programs[c.prog]
		if !slices.Contains(strings.Split(Path, ":"), path.Dir(at)) {
			t.Errorf("%s is at %s, not on the userland's PATH %s", c.prog, at, Path)
		}
		out, err := exec.Command("chroot", append([]string{dir, at}, c.args...)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("chroot %s %s: %v\n%s", at, strings.Join(c.args, " "), err, out)
		}
	}
	if l := layer[strings.TrimPrefix(tools.Programs["mkfs.ext4"], "/")]; l.hdr.Typeflag != tar.TypeSymlink || l.hdr.Linkname != "mke2fs" {
		t.Errorf("mkfs.ext4 beside mke2fs: type %c -> %q, want the package's symlink to mke2fs", l.hdr.Typeflag, l.hdr.Linkname)
	}

	if err := os.WriteFile(filepath.Join(dir, "ext4.img"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Truncate(filepath.Join(dir, "ext4.img"), 32<<20)
	out, err := exec.Command("chroot", dir, tools.Programs["mkfs.ext4"], "-q", "-F", "-L", "chrooted", "/ext4.img").CombinedOutput()
	if err != nil {
		t.Fatalf("mkfs.ext4 in the chroot: %v\n%s", err, out)
	}
	testenv.Tool(t, "e2fsck")
	if out, err := exec.Command("e2fsck", "-fn", filepath.Join(dir, "ext4.img")).CombinedOutput(); err != nil {
		t.Errorf("the host's e2fsck on the chroot's ext4: %v\n%s", err, out)
	}
	// mke2fs.conf is where ext4's features come from.
	out, _ = exec.Command("dumpe2fs", "-h", filepath.Join(dir, "ext4.img")).CombinedOutput()
	if !strings.Contains(string(out), "chrooted") || !strings.Contains(string(out), "extent") {
		t.Errorf("dumpe2fs of the chroot's ext4:\n%s", out)
	}
}

// TestToolsLayerIsDeterministic writes one layer twice and with another
// epoch, and checks owners and times.
func TestToolsLayerIsDeterministic(t *testing.T) {
	tools := fetchTools(t, hostArch(t), "e2fsck", "fsck.vfat", "mkfs.vfat")
	var a, b, c bytes.Buffer
	for _, w := range []struct {
		buf   *bytes.Buffer
		epoch int64
	}{{&a, 1700000000}, {&b, 1700000000}, {&c, 1700000001}} {
		if err := tools.WriteTar(w.buf, w.epoch); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two tarballs of one tools layer differ")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("another epoch gave the same tarball")
	}
	layer := readLayer(t, a.Bytes())
	for name, e := range layer {
		if e.hdr.Uid != 0 || e.hdr.Gid != 0 || e.hdr.ModTime.Unix() != 1700000000 {
			t.Errorf("%s: owner %d:%d, mtime %v", name, e.hdr.Uid, e.hdr.Gid, e.hdr.ModTime)
		}
		if strings.HasPrefix(name, "usr/share") || strings.HasPrefix(name, "etc/cron") || strings.Contains(name, "systemd") {
			t.Errorf("%s is not a program, a library or their data", name)
		}
	}
	// fsck.vfat is a link to fsck.fat, which was not asked for: the
	// program takes its place.
	if e := layer[strings.TrimPrefix(tools.Programs["fsck.vfat"], "/")]; e.hdr == nil || e.hdr.Typeflag != tar.TypeReg {
		t.Errorf("fsck.vfat without fsck.fat: %+v", e.hdr)
	}
	var pkgs []string
	for _, p := range tools.Packages {
		pkgs = append(pkgs, p.Name)
	}
	for _, want := range []string{"e2fsprogs", "dosfstools", "libc6", "libext2fs2"} {
		if !slices.Contains(pkgs, want) {
			t.Errorf("packages %v lack %s", pkgs, want)
		}
	}
	if slices.Contains(pkgs, "logsave") {
		t.Errorf("packages %v hold logsave, which gives the layer no file", pkgs)
	}
}

// TestToolsForArm64 checks a foreign architecture's layer without running
// it: every ELF file is aarch64, and each one's loader and libraries
// resolve inside the layer.
func TestToolsForArm64(t *testing.T) {
	tools := fetchTools(t, "arm64", checkers...)
	var buf bytes.Buffer
	if err := tools.WriteTar(&buf, 0); err != nil {
		t.Fatal(err)
	}
	layer := readLayer(t, buf.Bytes())
	elfs := 0
	for name, e := range layer {
		if e.hdr.Typeflag != tar.TypeReg || !bytes.HasPrefix(e.data, []byte(elf.ELFMAG)) {
			continue
		}
		elfs++
		f, err := elf.NewFile(bytes.NewReader(e.data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("%s is %v", name, f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				b, _ := io.ReadAll(p.Open())
				interp := strings.TrimRight(string(b), "\x00")
				if resolveLayer(layer, interp) == "" {
					t.Errorf("%s: loader %s does not resolve in the layer", name, interp)
				}
			}
		}
		needed, _ := f.DynString(elf.DT_NEEDED)
		for _, so := range needed {
			if !slices.ContainsFunc(libDirs(arch.ARM64), func(d string) bool { return resolveLayer(layer, path.Join(d, so)) != "" }) {
				t.Errorf("%s needs %s, which is in none of the layer's library directories", name, so)
			}
		}
	}
	for _, p := range checkers {
		if resolveLayer(layer, tools.Programs[p]) == "" {
			t.Errorf("%s at %q does not resolve", p, tools.Programs[p])
		}
	}
	if elfs < len(checkers) {
		t.Errorf("%d ELF files in the layer", elfs)
	}
	if tools.Arch != "arm64" || len(tools.Packages) == 0 || tools.Packages[0].Arch != "arm64" {
		t.Errorf("arch %s, packages %v", tools.Arch, tools.Packages)
	}
}

func hostArch(t *testing.T) arch.Arch {
	host, ok := arch.Host()
	if !ok {
		t.Skip("no Debian tools layer for a " + runtime.GOARCH + " host")
	}
	return host
}

func TestToolsUnknownProgram(t *testing.T) {
	_, err := FetchTools(context.Background(), logrus.New(), t.TempDir(), "x86_64", []string{"e2fsck", "/opt/bin/fsck.mine"})
	if err == nil || !strings.Contains(err.Error(), `"/opt/bin/fsck.mine"`) || !strings.Contains(err.Error(), "xfs_repair") {
		t.Fatalf("got %v, want an error naming the program and listing the known ones", err)
	}
}

func TestDependsNames(t *testing.T) {
	got := dependsNames("libblkid1 (>= 2.17.2), libc6 (>= 2.34) | libc6.1, python3:any, debconf (>= 0.5) | debconf-2.0, foo [amd64], bar <!nocheck>")
	want := []string{"libblkid1", "libc6", "python3", "debconf", "foo", "bar"}
	if !slices.Equal(got, want) {
		t.Errorf("dependsNames = %q, want %q", got, want)
	}
	if got := dependsNames(""); len(got) != 0 {
		t.Errorf("empty field: %q", got)
	}
}

func TestSonamePackage(t *testing.T) {
	for so, want := range map[string]string{
		"libext2fs.so.2": "libext2fs2", "liblzo2.so.2": "liblzo2-2", "libcom_err.so.2": "libcom-err2",
		"libc.so.6": "libc6", "libpcre2-8.so.0": "libpcre2-8-0", "libfoo.so": "",
	} {
		if got := sonamePackage(so); got != want {
			t.Errorf("sonamePackage(%s) = %q, want %q", so, got, want)
		}
	}
}

// Every program a recipe runs or prefers on the target has its Debian
// package here, so that a busybox userland can carry it.
func TestRecipeProgramsHavePackages(t *testing.T) {
	for _, r := range recipes.All() {
		for _, p := range append(append([]string(nil), r.Needs.Programs...), r.Needs.Prefers...) {
			if _, ok := ToolPackage(p); !ok {
				t.Errorf("no Debian package for %s, which %s runs", p, r.Name)
			}
		}
	}
}
