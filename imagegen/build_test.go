package imagegen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// writeSpec puts a spec and a small content tree in a temp dir.
func writeSpec(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for path, content := range map[string]string{
		"rootfs/etc/hostname":    "board\n",
		"rootfs/bin/tool":        "#!/bin/sh\necho hi\n",
		"rootfs/usr/share/a b c": "spaces in the name\n",
	} {
		p := filepath.Join(dir, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("tool", filepath.Join(dir, "rootfs/bin/link"))
	path := filepath.Join(dir, "t.fsb.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func build(t *testing.T, specPath string, epoch int64) (*plan.Plan, *Manifest, string) {
	t.Helper()
	s, p, diags := plan.LoadSealed(specPath, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %s", diags.Error())
	}
	out := t.TempDir()
	m, err := Build(context.Background(), p, p.Variants[0], Options{OutDir: out, SpecDir: s.Dir, Epoch: epoch, FullSHA256: true, CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, p.Variants[0].Board.Arch)})
	if err != nil {
		t.Fatal(err)
	}
	return p, m, filepath.Join(out, p.Variants[0].Name)
}

func needFS(t *testing.T, types ...string) {
	t.Helper()
	testenv.Tool(t, "sfdisk")
	for _, name := range types {
		typ, _ := filesystems.Lookup(name)
		for _, tool := range typ.Tools {
			testenv.Tool(t, tool)
		}
	}
}

const everyFS = `
image "disk" {
  size  = "1200MiB"
  align = "4MiB"
  partition "boot" {
    size = "32MiB"
    filesystem {
      type  = "vfat"
      label = "BOOT"
    }
    contents { dir = "rootfs/etc" } # FAT holds no symlinks
  }
  partition "root" {
    size = "64MiB"
    root = true
    filesystem {
      type  = "ext4"
      label = "root"
      geometry { erase_block = "4MiB" }
    }
    contents {
      dir = "rootfs"
      file "/etc/motd" {
        content = "hello\n"
        mode    = "0600"
        owner   = "1000:1000"
      }
    }
  }
  partition "f2fs" {
    size = "128MiB"
    filesystem { type = "f2fs" }
    contents { dir = "rootfs" }
  }
  partition "btrfs" {
    size = "128MiB"
    filesystem { type = "btrfs" }
    contents { dir = "rootfs" }
  }
  partition "xfs" {
    size = "320MiB"
    filesystem { type = "xfs" }
    contents { dir = "rootfs/etc" } # protofiles cannot name "a b c"
  }
  partition "nilfs2" {
    size = "160MiB"
    filesystem { type = "nilfs2" }
  }
  partition "squash" {
    size = "16MiB"
    filesystem { type = "squashfs" }
    contents { dir = "rootfs" }
  }
  partition "erofs" {
    size = "16MiB"
    filesystem { type = "erofs" }
    contents { dir = "rootfs" }
  }
}
`

// TestBuildEveryFilesystem builds one image with every type and checks
// each partition with its own checker, the table with sfdisk, and the
// files beside the image.
func TestBuildEveryFilesystem(t *testing.T) {
	needFS(t, "vfat", "ext4", "f2fs", "btrfs", "xfs", "nilfs2", "squashfs", "erofs")
	// fsbench's default epoch, 1980-01-01, which debugfs misreads as a
	// date when not written as @N.
	const epoch = 315532800
	_, m, dir := build(t, writeSpec(t, everyFS), epoch)
	img := m.Images[0]
	image := filepath.Join(dir, img.File)
	fi, err := os.Stat(image)
	if err != nil || fi.Size() != 1200<<20 {
		t.Fatalf("image size = %v, %v; want exactly 1200MiB", fi, err)
	}
	dump := run(t, "sfdisk", "-d", image)
	for _, p := range img.Partitions {
		if !strings.Contains(dump, "uuid="+strings.ToUpper(p.UUID)) {
			t.Errorf("sfdisk -d lacks partition %s (%s)", p.Name, p.UUID)
		}
		typ, _ := filesystems.Lookup(p.Filesystem)
		if typ.Checker == nil {
			continue
		}
		part := extract(t, image, p.Name, p.Offset, p.Size)
		argv := append(append([]string(nil), typ.Checker...), part)
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s on partition %s: %v\n%s", strings.Join(typ.Checker, " "), p.Name, err, out)
		}
	}
	root := extract(t, image, img.Partitions[1].Name, img.Partitions[1].Offset, img.Partitions[1].Size)
	if got := run(t, "debugfs", "-R", "cat /etc/hostname", root); !strings.Contains(got, "board") {
		t.Errorf("/etc/hostname in ext4 = %q", got)
	}
	stat := run(t, "debugfs", "-R", "stat /etc/motd", root)
	if !strings.Contains(stat, "User:  1000   Group:  1000") || !strings.Contains(stat, "Mode:  0600") {
		t.Errorf("/etc/motd owner or mode lost:\n%s", stat)
	}
	// Every timestamp is the epoch: a 32-bit userland cannot stat a file
	// stamped past 2038.
	for _, path := range []string{"/", "/etc/motd"} {
		stat := run(t, "debugfs", "-R", "stat "+path, root)
		for _, field := range []string{"ctime", "atime", "mtime", "crtime"} {
			want := fmt.Sprintf("%s: 0x%08x:", field, epoch)
			if !strings.Contains(stat, want) {
				t.Errorf("%s %s is not the epoch %d (%q):\n%s", path, field, epoch, want, stat)
			}
		}
	}
	for _, name := range []string{"manifest.json", "bootargs.txt", "fstab"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if m.Tools["mke2fs"] == "" || m.Tools["mke2fs"] == "unknown" {
		t.Errorf("mke2fs version not recorded: %q", m.Tools["mke2fs"])
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

const reproducible = `
image "disk" {
  table = "mbr"
  size  = "256MiB"
  partition "boot" {
    size = "32MiB"
    filesystem { type = "vfat" }
    contents { dir = "rootfs/etc" } # FAT holds no symlinks
  }
  partition "root" {
    size = "64MiB"
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
  partition "data" {
    size = "96MiB"
    filesystem { type = "f2fs" }
    contents { dir = "rootfs" }
  }
  partition "ro" {
    size    = "8MiB"
    logical = true
    filesystem { type = "squashfs" }
    contents { dir = "rootfs" }
  }
}
`

// TestBuildIsReproducible builds the same spec twice and compares the
// images' SHA-256; a different SOURCE_DATE_EPOCH must change them.
func TestBuildIsReproducible(t *testing.T) {
	needFS(t, "vfat", "ext4", "f2fs", "squashfs")
	path := writeSpec(t, reproducible)
	_, a, _ := build(t, path, 1700000000)
	// Touch an input: timestamps newer than SOURCE_DATE_EPOCH are clamped
	// to it, so nothing changes.
	now := time.Now()
	os.Chtimes(filepath.Join(filepath.Dir(path), "rootfs/etc/hostname"), now, now)
	_, b, _ := build(t, path, 1700000000)
	if a.Images[0].SHA256 != b.Images[0].SHA256 || a.Images[0].BmapSHA256 != b.Images[0].BmapSHA256 {
		t.Errorf("same inputs, different images: %+v vs %+v", a.Images[0], b.Images[0])
	}
	_, c, _ := build(t, path, 1700000001)
	if c.Images[0].SHA256 == a.Images[0].SHA256 || c.Images[0].BmapSHA256 == a.Images[0].BmapSHA256 {
		t.Errorf("a different SOURCE_DATE_EPOCH kept the image hash %s", a.Images[0].SHA256)
	}
}

// cancelOn cancels a build when it logs a message starting with prefix.
type cancelOn struct {
	prefix string
	cancel context.CancelFunc
}

func (h cancelOn) Levels() []logrus.Level { return logrus.AllLevels }
func (h cancelOn) Fire(e *logrus.Entry) error {
	if strings.HasPrefix(e.Message, h.prefix) {
		h.cancel()
	}
	return nil
}

// TestInterruptedBuildLeavesNothing cancels builds while filesystems are
// being made and while the image is being assembled, and checks that no
// image and no temporary file remain.
func TestInterruptedBuildLeavesNothing(t *testing.T) {
	needFS(t, "ext4")
	path := writeSpec(t, `image "big" {
  size = "2GiB"
  partition "a" {
    size = "1GiB"
    filesystem { type = "ext4" }
  }
  partition "b" {
    grow = true
    filesystem { type = "ext4" }
  }
}
`)
	s, p, _ := plan.Load(path, spec.Options{})
	for _, at := range []string{"building", "assembling"} {
		t.Run(at, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := logrus.New()
			log.Out = io.Discard
			log.Level = logrus.InfoLevel
			log.AddHook(cancelOn{prefix: at, cancel: cancel})
			_, err := Build(ctx, p, p.Variants[0], Options{OutDir: out, SpecDir: s.Dir, Log: log, CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, p.Variants[0].Board.Arch)})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("build cancelled while %s returned %v, want context.Canceled", at, err)
			}
			var left []string
			filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() {
					left = append(left, p)
				}
				return nil
			})
			if len(left) != 0 {
				t.Errorf("files left after a build interrupted while %s: %v", at, left)
			}
		})
	}
}
