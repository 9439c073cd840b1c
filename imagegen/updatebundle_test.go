package imagegen

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/runplan"
)

// TestUpdateFilesMakeABundleRAUCAccepts: the bundle an update test
// carries is one Debian's RAUC verifies against the certificate beside
// it, for fsbench's compatible, holding the new image; the old and the
// new image differ in every sector; and every file, the bundle and its
// certificate included, is the same at a second build of the same epoch.
func TestUpdateFilesMakeABundleRAUCAccepts(t *testing.T) {
	testenv.Tools(t, "rauc", "openssl", "mksquashfs")
	dir := t.TempDir()
	files, err := makeUpdateFiles(context.Background(), dir, "u/single", 64<<10, 1700000000, "rauc", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := testenv.Run(t, "", "rauc", "info", "--keyring="+files[runplan.UpdateCert], "--output-format=shell", files[runplan.UpdateBundle])
	for _, want := range []string{"RAUC_MF_COMPATIBLE='" + runplan.UpdateCompatible + "'", "RAUC_IMAGE_NAME_0='rootfs.img'", "RAUC_IMAGE_SIZE_0=65536"} {
		if !strings.Contains(out, want) {
			t.Errorf("rauc info lacks %s:\n%s", want, out)
		}
	}
	old, _ := os.ReadFile(files[runplan.UpdateOldImage])
	nu, _ := os.ReadFile(files[runplan.UpdateNewImage])
	if len(old) != 64<<10 || len(nu) != len(old) {
		t.Fatalf("images of %d and %d bytes", len(old), len(nu))
	}
	for off := 0; off < len(old); off += 512 {
		if bytes.Equal(old[off:off+512], nu[off:off+512]) {
			t.Fatalf("sector %d is the same in both images", off/512)
		}
	}
	again, err := makeUpdateFiles(context.Background(), filepath.Join(dir, "again"), "u/single", 64<<10, 1700000000, "rauc", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range files {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(again[name])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds (%d and %d bytes)", name, len(a), len(b))
		}
	}
	// Another case gets another key.
	other, err := makeUpdateFiles(context.Background(), filepath.Join(dir, "other"), "u/other", 64<<10, 1700000000, "rauc", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(files[runplan.UpdateCert])
	b, _ := os.ReadFile(other[runplan.UpdateCert])
	if bytes.Equal(a, b) {
		t.Error("two cases share one key")
	}
}

// TestSWUpdateImage: the SWUpdate image of a case is one Debian's
// swupdate checks against the certificate beside it, for fsbench's
// hardware, and the same at a second build; a byte of it changed is
// refused.
func TestSWUpdateImage(t *testing.T) {
	testenv.Tools(t, "swupdate", "openssl")
	dir := t.TempDir()
	files, err := makeUpdateFiles(context.Background(), dir, "u/swu", 64<<10, 1700000000, "swupdate", nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := makeUpdateFiles(context.Background(), filepath.Join(dir, "again"), "u/swu", 64<<10, 1700000000, "swupdate", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(files[runplan.UpdateSWU])
	b, _ := os.ReadFile(again[runplan.UpdateSWU])
	if len(a) < 64<<10 || !bytes.Equal(a, b) {
		t.Errorf("the image differs between two builds (%d and %d bytes)", len(a), len(b))
	}
	if _, ok := files[runplan.UpdateBundle]; ok {
		t.Error("an SWUpdate case carries a RAUC bundle too")
	}
	// sw-description's text, changed: its signature no longer matches.
	i := bytes.Index(a, []byte(`value = "3"`))
	if i < 0 {
		t.Fatal("no bootenv in the image")
	}
	a[i+9] = '9'
	bad := filepath.Join(dir, "bad.swu")
	if err := os.WriteFile(bad, a, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("swupdate", "-c", "-i", bad, "-k", files[runplan.UpdateCert], "-H", runplan.UpdateCompatible+":"+runplan.UpdateHWRevision).CombinedOutput()
	if err == nil {
		t.Errorf("swupdate accepted an image whose sw-description changed after signing:\n%s", out)
	}
}

const slotSpec = `
board "qemu-x86_64" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
}
image "disk" {
  table = "gpt"
  size  = "400MiB"
  partition "rootfs" {
    size = "64MiB"
    root = true
    filesystem {
      type = "ext4"
    }
    contents { dir = "rootfs" }
  }
  partition "data" {
    size = "16MiB"
    filesystem {
      type       = "ext4"
      mountpoint = "/mnt/data"
    }
  }
  partition "slot_a" {
    size = "12MiB"
    filesystem {
      type  = "ext4"
      label = "rootfs"
    }
  }
  partition "slot_b" { size = "12MiB" }
  partition "env" { size = "1MiB" }
  partition "log" { grow = true }
}
test "update" "u" {
  on     = partition.data
  slot_a = partition.slot_a
  slot_b = partition.slot_b
  env    = partition.env
  log    = partition.log
}
`

// TestSlotImagesAreTheSlotsFilesystem: when slot A's partition has a
// filesystem, the update's images are that filesystem at the slot's size
// (image_size follows it), holding the root partition's contents and the
// release file that tells them apart, each passing e2fsck, the same at a
// second build of the same epoch.
func TestSlotImagesAreTheSlotsFilesystem(t *testing.T) {
	needFS(t, "ext4")
	testenv.Tools(t, "debugfs")
	s, p, diags := plan.LoadSealed(writeSpec(t, slotSpec), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	v := p.Variants[0]
	c := v.Tests[0].Cases[0]
	if c.Params["image_size"] != int64(12<<20) {
		t.Fatalf("image_size %v, want the slot's 12MiB", c.Params["image_size"])
	}
	opts, err := Options{OutDir: t.TempDir(), SpecDir: s.Dir, Epoch: 1700000000}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	b := &builder{opts: opts, log: opts.Log, arch: v.Board.Arch}
	step := runplan.Step{Recipe: "update", Test: "u", Case: c.Name, Params: runplan.Params(c.Params)}
	images := func(dir string) map[string][]byte {
		files, err := b.slotImages(context.Background(), v, step, "u/"+c.Name, dir, "")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, name := range []string{runplan.UpdateOldImage, runplan.UpdateNewImage} {
			if out[name], err = os.ReadFile(files[name]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	dir := t.TempDir()
	first := images(dir)
	for name, version := range map[string]string{runplan.UpdateOldImage: "1", runplan.UpdateNewImage: "2"} {
		img := filepath.Join(dir, name)
		if len(first[name]) != 12<<20 {
			t.Errorf("%s: %d bytes, want the slot's 12MiB", name, len(first[name]))
		}
		testenv.Run(t, "", "e2fsck", "-fn", img)
		rel := testenv.Run(t, "", "debugfs", "-R", "cat "+runplan.UpdateSlotRelease, img)
		host := testenv.Run(t, "", "debugfs", "-R", "cat /etc/hostname", img)
		if !strings.Contains(rel, "version "+version) || host != "board\n" {
			t.Errorf("%s: release %q, /etc/hostname %q; want version %s and the root's contents", name, rel, host, version)
		}
	}
	if bytes.Equal(first[runplan.UpdateOldImage], first[runplan.UpdateNewImage]) {
		t.Error("the old and the new image are the same bytes")
	}
	again := images(t.TempDir())
	for name := range first {
		if !bytes.Equal(first[name], again[name]) {
			t.Errorf("%s differs between two builds of the same epoch", name)
		}
	}
}
