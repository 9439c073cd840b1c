package qemu

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func file(t *testing.T, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	sparse(t, p, size)
	return p
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	kern := file(t, dir, "vmlinux", 1)
	initrd := file(t, dir, "initrd.gz", 1)
	a := file(t, dir, "a,b.img", 1<<20) // a comma, which QEMU options escape as ",,"
	b := file(t, dir, "b.img", 1<<20)
	sd := file(t, dir, "sd.img", 32<<20)
	m := Machine{
		Kernel: kern, Initrd: initrd, Append: []string{"root=/dev/vda2", "rw"}, Accel: "tcg", Watchdog: true,
		Disks: []Disk{{Path: a}, {Path: b, Interface: NVMe}, {Path: sd, Interface: SD, Format: "raw"}},
	}
	got, err := m.Command("/tmp/x/console")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"qemu-system-x86_64", "-nodefaults", "-no-user-config", "-nographic",
		"-machine", "q35", "-accel", "tcg", "-cpu", "max", "-m", "512", "-smp", "1",
		"-kernel", kern, "-initrd", initrd, "-append", "console=ttyS0 root=/dev/vda2 rw",
		"-chardev", "socket,id=console,path=/tmp/x/console", "-serial", "chardev:console",
		"-drive", "file=" + strings.ReplaceAll(a, ",", ",,") + ",format=raw,if=none,id=disk0", "-device", "virtio-blk-pci,drive=disk0",
		"-drive", "file=" + b + ",format=raw,if=none,id=disk1", "-device", "nvme,drive=disk1,serial=fsbench1",
		"-drive", "file=" + sd + ",format=raw,if=none,id=disk2", "-device", "sdhci-pci", "-device", "sd-card,drive=disk2",
		"-device", "i6300esb", "-action", "watchdog=reset",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("x86_64:\n got %q\nwant %q", got, want)
	}

	arm := Machine{Arch: "arm64", Kernel: kern, Append: []string{"console=hvc0"}, Accel: "kvm", MemoryMiB: 1024, CPUs: 2, NoReboot: true}
	got, err = arm.Command("/s")
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"qemu-system-aarch64", "-nodefaults", "-no-user-config", "-nographic",
		"-machine", "virt", "-accel", "kvm", "-cpu", "host", "-m", "1024", "-smp", "2",
		"-kernel", kern, "-append", "console=hvc0",
		"-chardev", "socket,id=console,path=/s", "-serial", "chardev:console", "-no-reboot",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("aarch64:\n got %q\nwant %q", got, want)
	}
	arm.Accel = "tcg"
	if got, _ := arm.Command("/s"); !strings.Contains(strings.Join(got, " "), "-cpu cortex-a57") {
		t.Errorf("aarch64 TCG: %q", got)
	}
	if got := (Machine{Arch: "aarch64"}).cmdline(); got != "console=ttyAMA0" {
		t.Errorf("aarch64 console: %q", got)
	}

	arm32 := Machine{Arch: "armv7", Kernel: kern, Accel: "tcg"}
	got, err = arm32.Command("/s")
	if err != nil {
		t.Fatal(err)
	}
	if line := strings.Join(got, " "); !strings.HasPrefix(line, "qemu-system-arm ") ||
		!strings.Contains(line, "-machine virt -accel tcg -cpu cortex-a15") || !strings.Contains(line, "-append console=ttyAMA0") {
		t.Errorf("arm: %q", got)
	}
}

func TestMachineErrors(t *testing.T) {
	dir := t.TempDir()
	kern := file(t, dir, "vmlinux", 1)
	raw := file(t, dir, "disk.img", 1<<20)
	odd := file(t, dir, "odd.img", 3<<20)
	for want, m := range map[string]Machine{
		`architecture "riscv64"`:                {Arch: "riscv64", Kernel: kern},
		`accelerator "hvf"`:                     {Kernel: kern, Accel: "hvf"},
		`kernel "/nonexistent" is not`:          {Kernel: "/nonexistent"},
		`initrd "` + dir + `" is not`:           {Kernel: kern, Initrd: dir},
		`contains a newline`:                    {Kernel: kern, Append: []string{"a\nb"}},
		`format "qcow2": only raw`:              {Kernel: kern, Disks: []Disk{{Path: raw, Format: "qcow2"}}},
		`interface "ide"`:                       {Kernel: kern, Disks: []Disk{{Path: raw, Interface: "ide"}}},
		`no such file`:                          {Kernel: kern, Disks: []Disk{{Path: filepath.Join(dir, "none")}}},
		`more than one SD card`:                 {Kernel: kern, Disks: []Disk{{Path: raw, Interface: SD}, {Path: raw, Interface: SD}}},
		`want at least 64 MiB`:                  {Kernel: kern, MemoryMiB: 16},
		`Command needs the accelerator decided`: {Kernel: kern},
		"QEMU's emulated SD card needs an image whose size is a power of two; this one is 3145728 bytes " +
			"(grow it to 4194304 bytes, e.g. truncate -s 4194304": {Kernel: kern, Accel: "tcg", Disks: []Disk{{Path: odd, Interface: SD}}},
	} {
		_, err := m.Command("/s")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want one containing %q", err, want)
		}
	}
}

func TestModules(t *testing.T) {
	m := Machine{Disks: []Disk{{}, {Interface: NVMe}, {Interface: SD}, {Interface: Virtio}}, Watchdog: true}
	got := strings.Join(m.Modules("ext4", "f2fs", "xfs", "ext2"), " ")
	want := "virtio_pci virtio_blk nvme sdhci_pci mmc_block i6300esb crc32c_generic ext4 crc32_generic f2fs xfs"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := (Machine{}).Modules(); len(got) != 0 {
		t.Errorf("no disks: %q", got)
	}
}

func TestShellQuote(t *testing.T) {
	got := shellQuote([]string{"qemu", "-append", "console=ttyS0 root=/dev/vda2", "it's", ""})
	if want := `qemu -append 'console=ttyS0 root=/dev/vda2' 'it'\''s' ''`; got != want {
		t.Errorf("got %s", got)
	}
}
