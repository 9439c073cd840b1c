package bootinit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/parttable/parttabletest"
)

// fakeMachine is a sysfs and /dev tree laid out as the kernel does it:
// /sys/class/block/<name> links into /sys/devices, a partition's
// directory sits inside its disk's, and the /dev nodes are image files.
type fakeMachine struct {
	t        *testing.T
	root     string
	sys, dev string
}

func newFakeMachine(t *testing.T) *fakeMachine {
	root := t.TempDir()
	m := &fakeMachine{t: t, root: root, sys: filepath.Join(root, "sys"), dev: filepath.Join(root, "dev")}
	for _, d := range []string{filepath.Join(m.sys, "class", "block"), m.dev} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func (m *fakeMachine) write(path, content string) {
	m.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// addDisk adds a disk whose /dev node holds image, and its partitions
// named as the kernel would (parts: number -> name).
func (m *fakeMachine) addDisk(bus, name, image string, parts map[int]string) {
	m.t.Helper()
	for name, target := range m.prepareDisk(bus, name, image, parts) {
		m.link(name, target)
	}
}

// prepareDisk writes what addDisk does but the /sys/class/block links,
// which it returns (name -> target), so that a disk can appear at once.
func (m *fakeMachine) prepareDisk(bus, name, image string, parts map[int]string) map[string]string {
	m.t.Helper()
	links := map[string]string{}
	data, err := os.ReadFile(image)
	if err != nil {
		m.t.Fatal(err)
	}
	devdir := filepath.Join(m.sys, "devices", bus, "block", name)
	m.write(filepath.Join(devdir, "size"), strconv.Itoa(len(data)/512)+"\n")
	m.write(filepath.Join(devdir, "queue", "logical_block_size"), "512\n")
	links[name] = filepath.Join("..", "..", "devices", bus, "block", name)
	m.write(filepath.Join(m.dev, name), string(data))
	for num, pname := range parts {
		pdir := filepath.Join(devdir, pname)
		m.write(filepath.Join(pdir, "size"), "2048\n")
		m.write(filepath.Join(pdir, "partition"), strconv.Itoa(num)+"\n")
		links[pname] = filepath.Join("..", "..", "devices", bus, "block", name, pname)
		m.write(filepath.Join(m.dev, pname), "")
	}
	return links
}

func (m *fakeMachine) link(name, target string) {
	m.t.Helper()
	if err := os.Symlink(target, filepath.Join(m.sys, "class", "block", name)); err != nil {
		m.t.Fatal(err)
	}
}

func (m *fakeMachine) finder() finder { return finder{sys: m.sys, dev: m.dev} }

// twoDisks: vda with the GPT of makeGPT, nvme0n1 with an MBR, and an
// empty loop device that must be ignored.
func twoDisks(t *testing.T) *fakeMachine {
	m := newFakeMachine(t)
	m.addDisk("pci0000:00/0000:00:02.0/virtio1", "vda", makeGPT(t), map[int]string{1: "vda1", 2: "vda2", 4: "vda4"})
	mbr := testenv.SparseFile(t, 16<<20)
	testenv.Run(t, "label: dos\nlabel-id: 0x0a1b2c3d\nsize=4M, type=83\ntype=83\n", "sfdisk", "-q", mbr)
	m.addDisk("pci0000:00/0000:00:03.0/nvme/nvme0", "nvme0n1", mbr, map[int]string{1: "nvme0n1p1", 2: "nvme0n1p2"})
	m.write(filepath.Join(m.sys, "devices", "virtual", "block", "loop0", "size"), "0\n")
	m.link("loop0", "../../devices/virtual/block/loop0")
	return m
}

func TestLookup(t *testing.T) {
	m := twoDisks(t)
	// UUID= needs a filesystem on a partition's node.
	testenv.Tool(t, "mke2fs")
	fs := testenv.SparseFile(t, 4<<20)
	testenv.Run(t, "", "mke2fs", "-q", "-t", "ext4", "-U", "c0ffee00-1234-4abc-9def-00112233aabb", fs)
	data, _ := os.ReadFile(fs)
	m.write(filepath.Join(m.dev, "nvme0n1p1"), string(data))

	f := m.finder()
	devs, err := f.scan()
	if err != nil {
		t.Fatal(err)
	}
	for root, want := range map[string]string{
		"PARTUUID=" + strings.ToUpper(parttabletest.RootGUID): "vda2",
		"PARTUUID=" + parttabletest.Slot4GUID:                 "vda4",
		"PARTLABEL=root fs é":                                 "vda2",
		"PARTLABEL=boot":                                      "vda1",
		"PARTUUID=0A1B2C3D-02":                                "nvme0n1p2",
		"/dev/vda1":                                           "vda1",
		"/dev/nvme0n1":                                        "nvme0n1",
		"UUID=C0FFEE00-1234-4ABC-9DEF-00112233AABB":           "nvme0n1p1",
	} {
		r, err := ParseRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		got, seen := f.lookup(r, devs)
		if got != filepath.Join(m.dev, want) {
			t.Errorf("%s: got %q, want %s (seen %q)", root, got, want, seen)
		}
	}
	for _, root := range []string{"PARTUUID=0a1b2c3d-03", "PARTLABEL=ROOT FS é", "/dev/vda3", "/dev/loop0"} {
		r, _ := ParseRoot(root)
		if got, _ := f.lookup(r, devs); got != "" {
			t.Errorf("%s: found %s", root, got)
		}
	}
}

// TestWaitReportsWhatItSaw is the wrong-PARTUUID failure: the message
// names what was looked for and every table found.
func TestWaitReportsWhatItSaw(t *testing.T) {
	m := twoDisks(t)
	r, _ := ParseRoot("PARTUUID=deadbeef-0000-4000-8000-000000000000")
	var said []string
	start := time.Now()
	_, err := m.finder().wait(r, 50*time.Millisecond, func(s string) { said = append(said, s) })
	if err == nil {
		t.Fatal("found a device that does not exist")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("gave up after %v", d)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{
		"root device PARTUUID=deadbeef-0000-4000-8000-000000000000 did not appear within 50ms",
		"vda: gpt table, disk id " + parttabletest.DiskGUID,
		"partition 2 PARTUUID=" + strings.ToLower(parttabletest.RootGUID) + ` PARTLABEL="root fs é"`,
		"nvme0n1: dos table, disk id 0a1b2c3d; partition 1 PARTUUID=0a1b2c3d-01; partition 2 PARTUUID=0a1b2c3d-02",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q", want)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "waiting up to 50ms for root device PARTUUID=deadbeef") {
		t.Errorf("said %q", said)
	}

	// No block device at all says so.
	empty := newFakeMachine(t)
	_, err = empty.finder().wait(r, time.Millisecond, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "no block devices at all") {
		t.Errorf("empty machine: %v", err)
	}
}

// TestWaitForLateDevice is rootwait: the disk shows up while waiting.
func TestWaitForLateDevice(t *testing.T) {
	m := newFakeMachine(t)
	img := makeGPT(t)
	links := m.prepareDisk("platform/mmc0", "mmcblk0", img, map[int]string{1: "mmcblk0p1", 2: "mmcblk0p2"})
	var added atomic.Bool
	go func() {
		// The partitions first: the lookup must wait for their disk.
		for _, name := range []string{"mmcblk0p2", "mmcblk0p1", "mmcblk0"} {
			time.Sleep(50 * time.Millisecond)
			if name == "mmcblk0" {
				added.Store(true)
			}
			os.Symlink(links[name], filepath.Join(m.sys, "class", "block", name))
		}
	}()
	r, _ := ParseRoot("PARTLABEL=root fs é")
	told := 0
	got, err := m.finder().wait(r, 10*time.Second, func(string) { told++ })
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(m.dev, "mmcblk0p2") || !added.Load() || told != 1 {
		t.Errorf("got %s, told %d times", got, told)
	}
}

func makeGPT(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "sgdisk")
	img, err := parttabletest.GPT(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return img
}
