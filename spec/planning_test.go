package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const planningSpec = `
variable "binaries" { default = "output/images" }
variable "rootfs_tar" { type = string }
board "b" {
  arch       = "arm64"
  storage    = "vda"
  bootloader = "extlinux"
  boot {
    partition = partition.boot
    kernel    = "${var.binaries}/Image"
  }
}
image "disk" {
  size = "256MiB"
  raw "spl" {
    offset = "8KiB"
    file   = "${var.binaries}/spl.bin"
  }
  partition "boot" {
    size = "32MiB"
    filesystem { type = "vfat" }
    contents {
      file "/u-boot.itb" { source = "${var.binaries}/u-boot.itb" }
    }
  }
  partition "firmware" {
    image = "${var.binaries}/firmware.img"
  }
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
    contents { tar = var.rootfs_tar }
  }
}
`

// Planning, the inputs a build system makes and the variables only it
// gives are pending, said with where they will be looked for; without
// planning, each is an error.
func TestPlanningNeedsNoBuildOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "board.fsb.hcl")
	if err := os.WriteFile(path, []byte(planningSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := Load(path, Options{Planning: true})
	if diags.HasErrors() {
		t.Fatalf("planning: %v", diags)
	}
	got := strings.Join(s.PendingLines(), "\n")
	for _, want := range []string{
		"output/images/Image (board.fsb.hcl:10): a file the build makes, looked for at " + filepath.Join(dir, "output/images/Image"),
		"output/images/spl.bin (board.fsb.hcl:17)",
		"output/images/u-boot.itb (board.fsb.hcl:23)",
		"output/images/firmware.img (board.fsb.hcl:27)",
		"${var.rootfs_tar} (board.fsb.hcl:33): a file named by var.rootfs_tar, which the build gives",
		"variable rootfs_tar: no value yet",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pending lines lack %q:\n%s", want, got)
		}
	}
	img := s.Variants[0].Images[0]
	if r := img.Raw[0]; !r.SizePending || r.Size != 512 {
		t.Errorf("raw region: size %d, pending %v", r.Size, r.SizePending)
	}
	if p := img.Partitions[1]; !p.SizePending || p.Size <= 0 {
		t.Errorf("firmware partition: size %d, pending %v", p.Size, p.SizePending)
	}

	_, diags = Load(path, Options{})
	text := diags.Error()
	if !strings.Contains(text, "No value for required variable") {
		t.Errorf("a build's load takes the variable as given: %s", text)
	}
	_, diags = Load(path, Options{Vars: []string{"rootfs_tar=rootfs.tar"}})
	text = ""
	for _, d := range diags {
		text += d.Detail + "\n"
	}
	for _, want := range []string{"rootfs.tar does not exist", "output/images/Image does not exist", "output/images/spl.bin does not exist"} {
		if !strings.Contains(text, want) {
			t.Errorf("a build's load does not say %q:\n%s", want, text)
		}
	}
}

// Planning still refuses a path that leads out of the spec's roots, even
// through a symlink to a directory that exists.
func TestPlanningStillRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../elsewhere/zImage", "link/zImage", "/etc/nope/zImage"} {
		src := strings.Replace(planningSpec, `"${var.binaries}/Image"`, `"`+p+`"`, 1)
		path := filepath.Join(dir, "board.fsb.hcl")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, diags := Load(path, Options{Planning: true, Vars: []string{"rootfs_tar=x.tar"}})
		if !strings.Contains(diags.Error(), "lies outside the spec's directory") {
			t.Errorf("%s: %v", p, diags)
		}
	}
}
