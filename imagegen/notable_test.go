package imagegen

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// buildSpecText builds the spec src, with files (name -> bytes; a name
// ending in / is a directory) beside it, and returns the plan's first
// variant and its output directory.
func buildSpecText(t *testing.T, src string, files map[string][]byte) (plan.Variant, string) {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if name[len(name)-1] == '/' {
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specPath := filepath.Join(dir, "t.fsb.hcl")
	os.WriteFile(specPath, []byte(src), 0o644)
	s, p, diags := plan.LoadSealed(specPath, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	out := t.TempDir()
	log := logrus.New()
	log.SetOutput(testWriter{t})
	if _, err := Build(context.Background(), p, p.Variants[0], Options{OutDir: out, SpecDir: s.Dir, Epoch: 1, Log: log}); err != nil {
		t.Fatal(err)
	}
	return p.Variants[0], filepath.Join(out, p.Variants[0].Name)
}

// A raw NOR flash image: no table, regions at offsets, erased bytes
// 0xff everywhere nothing is written, zeros of a loader kept as zeros.
func TestRawFlashImage(t *testing.T) {
	loader := append(blobBytes("u-boot.bin", 100000), make([]byte, 4096)...)
	v, out := buildSpecText(t, `
image "flash" {
  table = "none"
  fill  = "0xff"
  align = "4KiB"
  size  = "1MiB"
  partition "uboot" {
    size  = "384KiB"
    image = "u-boot.bin"
  }
  partition "env" {
    offset = "384KiB"
    size   = "128KiB"
  }
  raw "fit" {
    offset = "768KiB"
    file   = "image.itb"
  }
}
`, map[string][]byte{"u-boot.bin": loader, "image.itb": blobBytes("image.itb", 5000)})
	img := v.Images[0]
	if img.DiskID != "" || img.Partitions[0].Type != "" || img.Partitions[0].UUID != "" || img.Partitions[0].Number != 0 {
		t.Errorf("a region without a table got table fields: %+v", img)
	}
	b, err := os.ReadFile(filepath.Join(out, "flash.img"))
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte{0xff}, 1<<20)
	copy(want, loader)
	copy(want[768<<10:], blobBytes("image.itb", 5000))
	if !bytes.Equal(b, want) {
		i := 0
		for i < len(b) && i < len(want) && b[i] == want[i] {
			i++
		}
		t.Fatalf("flash image differs from the layout at byte %d (%d bytes, want %d)", i, len(b), len(want))
	}
}

// A lone filesystem image (genimage's ext4 image with no hdimage) and a
// directory placed at a path inside a vfat filesystem.
func TestLoneFilesystemAndDirectoryAtPath(t *testing.T) {
	testenv.Tool(t, "mcopy")
	testenv.Tool(t, "e2fsck")
	_, out := buildSpecText(t, `
image "boot" {
  table = "none"
  partition "boot" {
    offset = 0
    size   = "8MiB"
    filesystem {
      type  = "ext4"
      label = "boot"
    }
  }
}
image "sd" {
  table   = "mbr"
  align   = "512B"
  disk_id = "0x00000000"
  partition "dummy" {
    size = 512
    type = "0x00"
  }
  partition "vfat" {
    size = "8MiB"
    type = "0x0c"
    filesystem { type = "vfat" }
    contents {
      file "/extlinux" { source = "in/extlinux" }
      file "/zImage" { content = "kernel" }
    }
  }
}
`, map[string][]byte{"in/extlinux/extlinux.conf": []byte("label linux\n"), "in/extlinux/sub/x": []byte("x")})
	if o, err := exec.Command("e2fsck", "-fn", filepath.Join(out, "boot.img")).CombinedOutput(); err != nil {
		t.Fatalf("the lone ext4 image is no filesystem: %v\n%s", err, o)
	}
	dump, err := exec.Command("sfdisk", "-d", filepath.Join(out, "sd.img")).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"label-id: 0x00000000", "start=           1, size=           1, type=0\n", "start=           2, size=       16384, type=c\n"} {
		if !bytes.Contains(dump, []byte(want)) {
			t.Errorf("sfdisk -d lacks %q:\n%s", want, dump)
		}
	}
	for file, want := range map[string]string{"::extlinux/extlinux.conf": "label linux\n", "::extlinux/sub/x": "x"} {
		cmd := exec.Command("mtype", "-i", filepath.Join(out, "sd.img")+"@@1024", file)
		cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		if got, err := cmd.Output(); err != nil || string(got) != want {
			t.Errorf("%s reads back %q (%v), want %q", file, got, err, want)
		}
	}
}
