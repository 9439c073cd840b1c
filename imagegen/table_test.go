package imagegen

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

func loadPlan(t *testing.T, src string) *plan.Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, p, diags := plan.Load(path, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	return p
}

// tableOnly writes just the partition table of img into a sparse file.
func tableOnly(t *testing.T, img plan.Image) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), img.File)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(img.Size); err != nil {
		t.Fatal(err)
	}
	if err := writeTable(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// sfdiskDump is `sfdisk -d` without the line that names the temporary
// file, so that it can be compared with a golden file.
func sfdiskDump(t *testing.T, path string) string {
	out := run(t, "sfdisk", "-d", path)
	return strings.ReplaceAll(out, path, "IMAGE")
}

const gptSpec = `
board "b" {
  storage = "mmcblk0"
}
image "disk" {
  size  = "256MiB"
  align = "4MiB"
  partition "boot" {
    size     = "32MiB"
    type     = "esp"
    bootable = true
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "100MiB"
    type = "linux-root-arm64"
    filesystem { type = "ext4" }
  }
  partition "data" {
    grow = true
    filesystem { type = "ext4" }
  }
}
`

const mbrSpec = `
image "sd" {
  table = "mbr"
  size  = "128MiB"
  partition "boot" {
    size     = "16MiB"
    bootable = true
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "32MiB"
    filesystem { type = "ext4" }
  }
  partition "swap" {
    size = "8MiB"
    type = "swap"
  }
  partition "log" {
    size    = "8MiB"
    logical = true
    filesystem { type = "ext4" }
  }
  partition "data" {
    size    = "16MiB"
    logical = true
    filesystem { type = "ext4" }
  }
}
`

func TestGPTTableWithSfdisk(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	img := loadPlan(t, gptSpec).Variants[0].Images[0]
	path := tableOnly(t, img)
	dump := sfdiskDump(t, path)
	golden.Check(t, "testdata/tables/gpt.sfdisk", []byte(dump), *update)
	for _, want := range []string{"label-id: " + strings.ToUpper(img.DiskID), "name=\"rootfs\"", "attrs=\"LegacyBIOSBootable\""} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %s:\n%s", want, dump)
		}
	}
}

func TestGPTTableWithSgdisk(t *testing.T) {
	testenv.Tool(t, "sgdisk")
	img := loadPlan(t, gptSpec).Variants[0].Images[0]
	out := run(t, "sgdisk", "-v", tableOnly(t, img))
	if !strings.Contains(out, "No problems found") {
		t.Errorf("sgdisk -v:\n%s", out)
	}
}

func TestMBRTableWithLogicalPartitions(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	img := loadPlan(t, mbrSpec).Variants[0].Images[0]
	path := tableOnly(t, img)
	dump := sfdiskDump(t, path)
	golden.Check(t, "testdata/tables/mbr.sfdisk", []byte(dump), *update)
	if !strings.Contains(dump, "label-id: "+img.DiskID) {
		t.Errorf("disk signature %s missing:\n%s", img.DiskID, dump)
	}
	// The kernel numbers logical partitions from 5; sfdisk must find both.
	for _, want := range []string{"IMAGE5 : start=", "IMAGE6 : start=", "type=f"} {
		if !strings.Contains(dump, want) {
			t.Errorf("sfdisk -d lacks %q:\n%s", want, dump)
		}
	}
	// sfdisk's own consistency check reads every EBR.
	if out := run(t, "sfdisk", "--verify", path); !strings.Contains(out, "No errors detected") {
		t.Errorf("sfdisk --verify:\n%s", out)
	}
}
