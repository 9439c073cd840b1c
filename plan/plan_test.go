package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/spec"
)

func resolve(t *testing.T, src string) *Plan {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, p, diags := LoadSealed(path, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %s", diags.Error())
	}
	return p
}

func TestDeviceNames(t *testing.T) {
	for disk, want := range map[string]string{"mmcblk1": "mmcblk1p2", "nvme0n1": "nvme0n1p2", "vda": "vda2", "sda": "sda2"} {
		if got := deviceName(disk, 2); got != want {
			t.Errorf("deviceName(%s, 2) = %s, want %s", disk, got, want)
		}
	}
}

func TestBootargs(t *testing.T) {
	p := resolve(t, `
board "b" {
  arch        = "arm64"
  storage     = "mmcblk0"
  root_by     = "partlabel"
  kernel_args = ["quiet"]
}
image "d" {
  size = "512MiB"
  partition "system" {
    size = "400MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime", "data=writeback", "commit=60"]
    }
  }
}
`)
	got := strings.Join(p.Variants[0].Bootargs, " ")
	want := "root=PARTLABEL=system rootfstype=ext4 rootflags=data=writeback,commit=60 rw rootwait console=ttyAMA0,115200n8 quiet"
	if got != want {
		t.Errorf("bootargs = %q\nwant      %q", got, want)
	}
}

func TestReadOnlyRootAndMBRPartUUID(t *testing.T) {
	p := resolve(t, `
image "d" {
  table   = "mbr"
  disk_id = "0x0badcafe"
  size    = "64MiB"
  partition "boot" {
    size = "8MiB"
    filesystem { type = "vfat" }
  }
  partition "root" {
    size = "32MiB"
    root = true
    filesystem { type = "squashfs" }
  }
}
`)
	got := strings.Join(p.Variants[0].Bootargs, " ")
	if !strings.HasPrefix(got, "root=PARTUUID=0badcafe-02 rootfstype=squashfs ro rootwait") {
		t.Errorf("bootargs = %q", got)
	}
	img := p.Variants[0].Images[0]
	if img.Partitions[0].Type != "0x0c" || img.Partitions[1].Type != "0x83" {
		t.Errorf("MBR types = %s, %s", img.Partitions[0].Type, img.Partitions[1].Type)
	}
}

var guid = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestIDsDeriveFromNames: ids are version-5 UUIDs, stable run to run,
// distinct between variants, partitions and filesystems.
func TestIDsDeriveFromNames(t *testing.T) {
	src := `
matrix "fs" { values = ["ext4", "ext2"] }
image "d" {
  size = "64MiB"
  partition "a" {
    size = "16MiB"
    filesystem { type = matrix.fs }
  }
  partition "b" {
    size = "16MiB"
    filesystem { type = matrix.fs }
  }
}
`
	p1, p2 := resolve(t, src), resolve(t, src)
	seen := map[string]string{}
	for vi, v := range p1.Variants {
		img := v.Images[0]
		ids := map[string]string{"disk": img.DiskID}
		for _, pt := range img.Partitions {
			ids["part "+pt.Name] = pt.UUID
			ids["fs "+pt.Name] = pt.Filesystem.UUID
		}
		for what, id := range ids {
			if !guid.MatchString(id) {
				t.Errorf("%s %s = %q is not a version-5 UUID", v.Name, what, id)
			}
			if prev, ok := seen[id]; ok {
				t.Errorf("%s %s repeats the id of %s", v.Name, what, prev)
			}
			seen[id] = v.Name + " " + what
		}
		if again := p2.Variants[vi].Images[0].DiskID; again != img.DiskID {
			t.Errorf("disk id changed run to run: %s vs %s", img.DiskID, again)
		}
	}
}

func TestExplicitIDsWin(t *testing.T) {
	p := resolve(t, `
image "d" {
  size    = "64MiB"
  disk_id = "11111111-2222-3333-4444-555555555555"
  partition "a" {
    size = "16MiB"
    uuid = "AAAAAAAA-2222-3333-4444-555555555555"
    type = "linux-root-arm64"
    filesystem {
      type = "ext4"
      uuid = "bbbbbbbb-2222-3333-4444-555555555555"
    }
  }
}
`)
	img := p.Variants[0].Images[0]
	pt := img.Partitions[0]
	if img.DiskID != "11111111-2222-3333-4444-555555555555" || pt.UUID != "aaaaaaaa-2222-3333-4444-555555555555" ||
		pt.Filesystem.UUID != "bbbbbbbb-2222-3333-4444-555555555555" || pt.Type != "b921b045-1df0-41c3-af44-4c6f280d3fae" {
		t.Errorf("ids = %s %s %s type %s", img.DiskID, pt.UUID, pt.Filesystem.UUID, pt.Type)
	}
}

// TestPlanJSONVersioned: the JSON plan names its format and carries every
// number a build needs.
func TestPlanJSONVersioned(t *testing.T) {
	p := resolve(t, `image "d" {
  size = "64MiB"
  partition "a" {
    size = "16MiB"
    filesystem { type = "ext4" }
  }
}
`)
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(b, &back)
	if back["format"] != Format || len(p.Fingerprint) != 64 {
		t.Errorf("format %v fingerprint %q", back["format"], p.Fingerprint)
	}
	pt := p.Variants[0].Images[0].Partitions[0]
	if pt.StartSector != 2048 || pt.EndSector != 2048+32768-1 || pt.Offset != 1<<20 || pt.Size != 16<<20 {
		t.Errorf("partition = %+v", pt)
	}
	if len(pt.Filesystem.Mkfs.Argv) == 0 || pt.Filesystem.Mkfs.Argv[0] != "mke2fs" {
		t.Errorf("mkfs = %v", pt.Filesystem.Mkfs.Argv)
	}
}
