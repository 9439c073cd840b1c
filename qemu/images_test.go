package qemu

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// rootFS builds a filesystem image of type fstype whose /sbin/init is
// guestinit for arch, with the directories bootinit moves /dev, /proc and
// /sys into and a /mnt. nilfs2 has no offline populating tool: its image
// is empty, and TestBootFilesystems fills it from a VM.
func rootFS(t *testing.T, fstype, arch string) string {
	t.Helper()
	tree := filepath.Join(t.TempDir(), "tree")
	for _, d := range []string{"sbin", "dev", "proc", "sys", "mnt"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	init := filepath.Join(tree, "sbin", "init")
	copyFile(t, program(t, guestinitPkg, arch), init, 0o755)

	img := filepath.Join(t.TempDir(), fstype+".img")
	size := map[string]int64{"ext4": 16, "xfs": 300, "btrfs": 128, "f2fs": 64, "nilfs2": 64}[fstype] << 20
	sparse(t, img, size)
	uuid := guid("rootfs " + fstype)
	switch fstype {
	case "ext4":
		run(t, "mke2fs", "-q", "-t", "ext4", "-U", uuid, "-E", "root_owner=0:0", "-d", tree, img)
	case "xfs":
		proto := filepath.Join(t.TempDir(), "proto")
		p := "/dev/null\n0 0\nd--755 0 0\n" +
			"sbin d--755 0 0\ninit ---755 0 0 " + init + "\n$\n" +
			"dev d--755 0 0\n$\nproc d--755 0 0\n$\nsys d--755 0 0\n$\nmnt d--755 0 0\n$\n$\n"
		if err := os.WriteFile(proto, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "mkfs.xfs", "-q", "-m", "uuid="+uuid, "-p", proto, img)
	case "btrfs":
		run(t, "mkfs.btrfs", "-q", "-U", uuid, "--rootdir", tree, img)
	case "f2fs":
		run(t, "mkfs.f2fs", "-q", "-U", uuid, img)
		run(t, "sload.f2fs", "-f", tree, img)
	case "nilfs2":
		run(t, "mkfs.nilfs2", "-q", "-B", "16", img)
	default:
		t.Fatalf("no recipe for %s", fstype)
	}
	return img
}

// disk puts fsImage as partition 2 of a disk with a partition table of
// type table ("gpt" or "dos") after a 1 MiB partition 1. The partitions'
// ids derive from name. With pow2 the disk size is rounded up to a power
// of two (QEMU's SD card wants that).
type testDisk struct {
	path     string
	partUUID string // of partition 2
}

func disk(t *testing.T, name, table, fsImage string, pow2 bool) testDisk {
	t.Helper()
	fi, err := os.Stat(fsImage)
	if err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	size := 2*mib + fi.Size() + mib // partition 1, partition 2, backup GPT
	if pow2 {
		size = int64(1) << bits.Len64(uint64(size-1))
	}
	img := filepath.Join(t.TempDir(), name+".img")
	sparse(t, img, size)
	d := testDisk{path: img}
	var script string
	sectors := fi.Size() / 512
	switch table {
	case "gpt":
		d.partUUID = guid(name + " partition 2")
		script = fmt.Sprintf("label: gpt\nlabel-id: %s\n"+
			"start=2048, size=2048, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=%s, name=boot\n"+
			"start=4096, size=%d, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, uuid=%s, name=root\n",
			guid(name+" disk"), guid(name+" partition 1"), sectors, d.partUUID)
	case "dos":
		sig := guid(name + " disk")[:8]
		d.partUUID = sig + "-02"
		script = fmt.Sprintf("label: dos\nlabel-id: 0x%s\nstart=2048, size=2048, type=83\nstart=4096, size=%d, type=83\n", sig, sectors)
	}
	cmd := exec.Command("sfdisk", "-q", img)
	cmd.Stdin = strings.NewReader(script)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v\n%s", err, b)
	}
	copyInto(t, fsImage, img, 2*mib)
	return d
}

// copyInto writes src into dst at off, skipping all-zero blocks so that
// the sparse filesystem images stay sparse.
func copyInto(t *testing.T, src, dst string, off int64) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	for pos := int64(0); ; {
		n, err := io.ReadFull(in, buf)
		if n > 0 && !bytes.Equal(buf[:n], zero[:n]) {
			if _, werr := out.WriteAt(buf[:n], off+pos); werr != nil {
				t.Fatal(werr)
			}
		}
		pos += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	testenv.Tool(t, name)
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
