package initramfs

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/qemu/kernel/kerneltest"
)

func fakeInit(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "init")
	if err := os.WriteFile(p, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func buildBytes(t *testing.T, b Boot) ([]byte, []string) {
	t.Helper()
	var buf bytes.Buffer
	list, err := Build(&buf, b)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), list
}

func gunzipAll(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBuild(t *testing.T) {
	k := kerneltest.Get(t, "x86_64")
	init := fakeInit(t)
	b := Boot{Kernel: k, Modules: []string{"virtio_pci", "virtio_blk", "crc32c_generic", "ext4"}, Init: init}
	gz, list := buildBytes(t, b)
	entries := parseNewc(t, gunzipAll(t, gz))
	byName := map[string]entry{}
	var names []string
	for _, e := range entries {
		byName[e.name] = e
		names = append(names, e.name)
	}
	t.Logf("%d entries, %d bytes gzipped, modules: %s", len(entries), len(gz), strings.Join(list, " "))

	for name, mode := range map[string]uint32{
		"dev": 0o040755, "dev/console": 0o020600, "proc": 0o040555, "sys": 0o040555, "newroot": 0o040755,
		"etc/fsbench/modules": 0o100644, "init": 0o100755,
	} {
		if e, ok := byName[name]; !ok || e.mode != mode {
			t.Errorf("%s: mode %#o, want %#o (present %v)", name, e.mode, mode, ok)
		}
	}
	if c := byName["dev/console"]; c.rmajor != 5 || c.rminor != 1 {
		t.Errorf("dev/console is %d,%d", c.rmajor, c.rminor)
	}
	if want, _ := os.ReadFile(init); !bytes.Equal(byName["init"].data, want) {
		t.Error("init differs from the host file")
	}
	if got := string(byName["etc/fsbench/modules"].data); got != strings.Join(list, "\n")+"\n" {
		t.Errorf("modules list %q", got)
	}
	// Every listed module is in the archive with the kernel's bytes, and
	// each comes after the modules it depends on (jbd2 before ext4).
	pos := map[string]int{}
	for i, m := range list {
		e, ok := byName[strings.TrimPrefix(m, "/")]
		if !ok {
			t.Errorf("%s listed but not archived", m)
			continue
		}
		want, _ := os.ReadFile(filepath.Join(k.Dir, m))
		if !bytes.Equal(e.data, want) {
			t.Errorf("%s differs from the kernel package's file", m)
		}
		pos[filepath.Base(m)] = i
	}
	for _, dep := range [][2]string{{"jbd2.ko", "ext4.ko"}, {"virtio.ko", "virtio_blk.ko"}, {"crc32c_generic.ko", "ext4.ko"}} {
		if pos[dep[0]] >= pos[dep[1]] {
			t.Errorf("%s does not come before %s in %v", dep[0], dep[1], list)
		}
	}
	if !strings.HasPrefix(list[0], "/lib/modules/"+k.Release+"/kernel/") {
		t.Errorf("module path %s", list[0])
	}

	// Same inputs, same bytes; another module list, other bytes.
	again, _ := buildBytes(t, b)
	if sha256.Sum256(gz) != sha256.Sum256(again) {
		t.Error("two builds of the same Boot differ")
	}
	b.Modules = []string{"virtio_pci", "virtio_blk", "crc32c_generic", "xfs"}
	if other, _ := buildBytes(t, b); bytes.Equal(gz, other) {
		t.Error("negative control: another module list gave the same bytes")
	}
}

// TestBuildCompressedModules makes a kernel tree whose modules are .ko.xz,
// .ko.zst and .ko.gz (as other distributions ship them) from the real
// kernel's plain files, and checks the archive holds the plain bytes.
func TestBuildCompressedModules(t *testing.T) {
	testenv.Tool(t, "xz") // the kernel package reads compressed .modinfo through them
	testenv.Tool(t, "zstd")
	real := kerneltest.Get(t, "x86_64")
	fake := *kernelCopy(real)
	fake.Dir = t.TempDir()
	fake.ModulesDir = filepath.Join(fake.Dir, "lib", "modules", real.Release)
	plain := map[string][]byte{}
	for name, rel := range map[string]string{
		"crc32c_generic": "kernel/crypto/crc32c_generic.ko",
		"jbd2":           "kernel/fs/jbd2/jbd2.ko",
		"mbcache":        "kernel/fs/mbcache.ko",
		"crc16":          "kernel/lib/crc16.ko",
		"ext4":           "kernel/fs/ext4/ext4.ko",
	} {
		data, err := os.ReadFile(filepath.Join(real.ModulesDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		plain[name] = data
		var out []byte
		switch name {
		case "crc32c_generic", "crc16":
			out, rel = compressXZ(t, data), rel+".xz"
		case "ext4", "mbcache":
			out, rel = compressZstd(t, data), rel+".zst"
		default:
			out, rel = compressGzip(t, data), rel+".gz"
		}
		p := filepath.Join(fake.ModulesDir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gz, list := buildBytes(t, Boot{Kernel: &fake, Modules: []string{"crc32c_generic", "ext4"}, Init: fakeInit(t)})
	byName := map[string][]byte{}
	for _, e := range parseNewc(t, gunzipAll(t, gz)) {
		byName["/"+e.name] = e.data
	}
	if len(list) != 5 {
		t.Fatalf("list %v", list)
	}
	for _, m := range list {
		if !strings.HasSuffix(m, ".ko") {
			t.Errorf("%s keeps a compression suffix", m)
		}
		name := strings.TrimSuffix(filepath.Base(m), ".ko")
		if !bytes.Equal(byName[m], plain[name]) {
			t.Errorf("%s is not the decompressed module", m)
		}
	}
}

// kernelCopy copies the exported fields only: a Kernel caches its module
// index, which must not be shared with the copy.
func kernelCopy(k *kernel.Kernel) *kernel.Kernel {
	return &kernel.Kernel{Version: k.Version, Dir: k.Dir, Image: k.Image, Config: k.Config, Release: k.Release, ModulesDir: k.ModulesDir}
}

func compressXZ(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func compressZstd(t *testing.T, b []byte) []byte {
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	return e.EncodeAll(b, nil)
}

func compressGzip(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestBuildNeedsKernelAndInit(t *testing.T) {
	if _, err := Build(io.Discard, Boot{}); err == nil {
		t.Error("empty Boot accepted")
	}
}
