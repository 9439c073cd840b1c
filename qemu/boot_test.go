package qemu

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/qemu/kernel"
)

// testMemory is enough for these small roots, and a smaller guest boots
// a little faster under TCG.
const testMemory = 256

// checkBooted checks that bootinit mounted the root and guestinit ran
// from it, as PID 1, on the expected filesystem and device.
func checkBooted(t *testing.T, r *bootResult, fstype, dev string) {
	t.Helper()
	if r.err != nil {
		t.Errorf("QEMU: %v", r.err)
	}
	mounted := "fsbench-init: Mounted root (" + fstype + " filesystem) on " + dev
	tm, ok := r.seen(mounted)
	if !ok {
		t.Errorf("no %q line", mounted)
	}
	marker := "FSBENCH-GUEST-OK pid=1 root=" + fstype + " "
	tk, ok := r.seen(marker)
	if !ok {
		t.Errorf("no %q line", marker)
	}
	if _, bad := r.seen("FSBENCH-GUEST-ERROR"); bad {
		t.Error("the guest init reported an error")
	}
	t.Logf("root mounted after %.2fs, guest init ran after %.2fs, QEMU exited after %.2fs",
		tm.Seconds(), tk.Seconds(), r.took.Seconds())
}

// TestBootGPTPartUUID boots an ext4 root named by its GPT PARTUUID (in
// upper case: the match ignores case). The guest reboots once: the reset
// machine boots again and the console keeps flowing; the second boot
// powers off and QEMU exits. The watchdog device is there and found.
func TestBootGPTPartUUID(t *testing.T) {
	t.Parallel()
	const arch = "x86_64"
	needQEMU(t, arch)
	k, image := guestKernel(t, arch)
	d := disk(t, "gpt-ext4", "gpt", rootFS(t, "ext4", arch), false)
	m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path}}, Watchdog: true, MemoryMiB: testMemory}
	m.Initrd = initrd(t, k, arch, m.Modules("ext4"))
	m.Append = []string{"root=PARTUUID=" + strings.ToUpper(d.partUUID), "rw", "panic=-1", "fsbench.test=reboot"}
	r := boot(t, m, nil)
	checkBooted(t, r, "ext4", "/dev/vda2")
	if n := r.count("Linux version"); n != 2 {
		t.Errorf("%d kernel boots seen, want 2", n)
	}
	if n := r.count("fsbench-init: Mounted root"); n != 2 {
		t.Errorf("%d root mounts seen, want 2", n)
	}
	if _, ok := r.seen("FSBENCH-GUEST-REBOOTING"); !ok {
		t.Error("no reboot")
	}
	if _, ok := r.seen("i6300ESB timer"); !ok {
		t.Error("the watchdog's driver found no i6300ESB")
	}
}

// TestBootFilesystems boots a root of each filesystem, each with another
// way of naming it. f2fs and nilfs2 cannot be mounted by the host; nilfs2
// cannot even be filled there, so an ext4 VM copies guestinit onto it
// first.
func TestBootFilesystems(t *testing.T) {
	const arch = "x86_64"
	for _, tc := range []struct {
		fstype, table, root string // root: how root= names the partition
		dev                 string
	}{
		{"xfs", "dos", "dev", "/dev/vda2"},
		{"btrfs", "gpt", "partlabel", "/dev/vda2"},
		{"f2fs", "dos", "partuuid", "/dev/vda2"},
		{"nilfs2", "gpt", "uuid", "/dev/vda2"},
	} {
		t.Run(tc.fstype, func(t *testing.T) {
			t.Parallel()
			needQEMU(t, arch)
			k, image := guestKernel(t, arch)
			fs := rootFS(t, tc.fstype, arch)
			d := disk(t, tc.fstype, tc.table, fs, false)
			m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path}}, MemoryMiB: testMemory}
			if tc.fstype == "nilfs2" {
				populate(t, k, image, d.path, "nilfs2")
			}
			m.Initrd = initrd(t, k, arch, m.Modules(tc.fstype))
			root := map[string]string{
				"dev":       "root=/dev/vda2",
				"partlabel": "root=PARTLABEL=root",
				"partuuid":  "root=PARTUUID=" + d.partUUID,
				"uuid":      "root=UUID=" + strings.TrimSpace(run(t, "blkid", "-p", "-o", "value", "-s", "UUID", fs)),
			}[tc.root]
			m.Append = []string{root, "rootfstype=" + tc.fstype, "rw", "panic=-1"}
			r := boot(t, m, nil)
			checkBooted(t, r, tc.fstype, tc.dev)
			if _, ok := r.seen("root=" + tc.fstype + " rw"); !ok {
				t.Error("rw was not honoured")
			}
		})
	}
}

// populate copies guestinit onto the filesystem in partition 2 of img
// from an ext4 VM, for filesystems that no host tool can fill.
func populate(t *testing.T, k *kernel.Kernel, image, img, fstype string) {
	t.Helper()
	const arch = "x86_64"
	helper := disk(t, "populate-"+fstype, "gpt", rootFS(t, "ext4", arch), false)
	m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: helper.path}, {Path: img}}, MemoryMiB: testMemory}
	m.Initrd = initrd(t, k, arch, m.Modules("ext4", fstype))
	m.Append = []string{"root=PARTUUID=" + helper.partUUID, "panic=-1", "fsbench.test=populate:/dev/vdb2:" + fstype}
	r := boot(t, m, nil)
	if _, ok := r.seen("FSBENCH-GUEST-POPULATED /dev/vdb2"); !ok || r.err != nil {
		t.Fatalf("populating %s failed: %v", fstype, r.err)
	}
	t.Logf("populated the %s root from a VM in %.2fs", fstype, r.took.Seconds())
}

// TestBootNVMe boots from an NVMe disk and types into the console.
func TestBootNVMe(t *testing.T) {
	t.Parallel()
	const arch = "x86_64"
	needQEMU(t, arch)
	k, image := guestKernel(t, arch)
	d := disk(t, "nvme-ext4", "gpt", rootFS(t, "ext4", arch), false)
	m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path, Interface: NVMe}}, MemoryMiB: testMemory}
	m.Initrd = initrd(t, k, arch, m.Modules("ext4"))
	m.Append = []string{"root=PARTUUID=" + d.partUUID, "panic=-1", "fsbench.test=echo"}
	r := boot(t, m, func(vm *VM, line string) {
		if strings.Contains(line, "FSBENCH-GUEST-READY") {
			if _, err := vm.Console().Write([]byte("typed by the host\n")); err != nil {
				t.Error(err)
			}
		}
	})
	checkBooted(t, r, "ext4", "/dev/nvme0n1p2")
	if _, ok := r.seen("FSBENCH-GUEST-OK pid=1 root=ext4 ro,"); !ok {
		t.Error("root is not read-only by default")
	}
	if _, ok := r.seen("FSBENCH-GUEST-ECHO typed by the host"); !ok {
		t.Error("the guest did not read what the host typed")
	}
}

// TestBootSD boots from an SD card, which the kernel finds only after
// mmc's asynchronous card detection: rootwait is needed, as on boards.
func TestBootSD(t *testing.T) {
	t.Parallel()
	const arch = "x86_64"
	needQEMU(t, arch)
	k, image := guestKernel(t, arch)
	d := disk(t, "sd-ext4", "dos", rootFS(t, "ext4", arch), true)
	m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path, Interface: SD}}, MemoryMiB: testMemory}
	m.Initrd = initrd(t, k, arch, m.Modules("ext4"))
	m.Append = []string{"root=PARTUUID=" + d.partUUID, "rootwait", "panic=-1"}
	r := boot(t, m, nil)
	checkBooted(t, r, "ext4", "/dev/mmcblk0p2")
}

// TestBootFailures checks that every way bootinit can fail says what it
// looked for and what it found, and powers off: QEMU exits by itself and
// the kernel never panics.
func TestBootFailures(t *testing.T) {
	const arch = "x86_64"
	for _, tc := range []struct {
		name    string
		append  []string
		modules []string // nil: the machine's and ext4's
		want    []string
	}{
		{
			name:   "wrong PARTUUID",
			append: []string{"root=PARTUUID=deadbeef-0000-4000-8000-000000000000", "rootwait=1"},
			want: []string{
				"fsbench-init: waiting up to 1s for root device PARTUUID=deadbeef-0000-4000-8000-000000000000",
				"fsbench-init: error: root device PARTUUID=deadbeef-0000-4000-8000-000000000000 did not appear within 1s; " +
					"found: vda: gpt table, disk id " + guid("fail-wrong-PARTUUID disk") + "; partition 1 PARTUUID=" +
					guid("fail-wrong-PARTUUID partition 1") + ` PARTLABEL="boot"; partition 2 PARTUUID=` +
					guid("fail-wrong-PARTUUID partition 2") + ` PARTLABEL="root"`,
			},
		},
		{
			name:    "no filesystem module",
			append:  []string{"root=/dev/vda2", "rootfstype=ext4"},
			modules: []string{"virtio_pci", "virtio_blk"},
			want: []string{
				"fsbench-init: error: mounting /dev/vda2 on /newroot (ro) failed: ext4: not in /proc/filesystems " +
					"(which lists no block filesystem at all)",
				"is its module in /etc/fsbench/modules?",
			},
		},
		{
			name:   "no init",
			append: []string{"root=PARTLABEL=root", "init=/sbin/missing"},
			want: []string{
				"fsbench-init: Mounted root (ext4 filesystem) on /dev/vda2",
				"fsbench-init: error: switching to the root filesystem /newroot (ext4 on /dev/vda2): " +
					"init /sbin/missing on the root filesystem: no such file or directory (set init= to the program to start)",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			needQEMU(t, arch)
			k, image := guestKernel(t, arch)
			d := disk(t, "fail-"+strings.ReplaceAll(tc.name, " ", "-"), "gpt", rootFS(t, "ext4", arch), false)
			m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path}}, MemoryMiB: testMemory}
			mods := tc.modules
			if mods == nil {
				mods = m.Modules("ext4")
			}
			m.Initrd = initrd(t, k, arch, mods)
			m.Append = append(tc.append, "panic=-1")
			r := boot(t, m, nil)
			if r.err != nil {
				t.Errorf("QEMU did not exit on the guest's power-off: %v", r.err)
			}
			for _, w := range append(tc.want, "fsbench-init: powering off", "reboot: Power down") {
				if n := r.count(w); n != 1 {
					t.Errorf("%d lines with %q, want 1", n, w)
				}
			}
			for _, bad := range []string{"Kernel panic", "FSBENCH-GUEST"} {
				if _, ok := r.seen(bad); ok {
					t.Errorf("%q seen", bad)
				}
			}
			t.Logf("powered off after %.2fs", r.took.Seconds())
		})
	}
}

// TestBootArm64 boots Debian's arm64 kernel on QEMU's virt machine, with
// the watchdog, which is a PCI device there too.
func TestBootArm64(t *testing.T) {
	t.Parallel()
	const arch = "aarch64"
	needQEMU(t, arch)
	k, image := guestKernel(t, arch)
	d := disk(t, "arm64-ext4", "gpt", rootFS(t, "ext4", arch), false)
	m := Machine{Arch: arch, Kernel: image, Disks: []Disk{{Path: d.path}}, MemoryMiB: testMemory, Watchdog: true}
	m.Initrd = initrd(t, k, arch, m.Modules("ext4"))
	m.Append = []string{"root=PARTUUID=" + d.partUUID, "panic=-1"}
	r := boot(t, m, nil)
	checkBooted(t, r, "ext4", "/dev/vda2")
	if _, ok := r.seen("Machine model: linux,dummy-virt"); !ok {
		t.Error("not the virt machine")
	}
	if _, ok := r.seen("i6300ESB timer"); !ok {
		t.Error("the watchdog's driver found no i6300ESB")
	}
}
