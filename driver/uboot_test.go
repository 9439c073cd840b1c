package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/report"
	"github.com/fsbench/fsbench/wire/arch"
)

// qemuBoardSpec is a small board in QEMU: %[1]s is the architecture, %[2]s
// the console, %[3]s the bootloader, %[4]s the boot block, %[5]s the
// partitions before the root, %[6]s the board's other attributes, %[7]s
// the filesystem of the partition fio writes to.
const qemuBoardSpec = `
board "qemu-%[1]s" {
  arch       = "%[1]s"
  console    = "%[2]s"
  storage    = "vda"
  bootloader = "%[3]s"
  %[6]s
  %[4]s
}

image "disk" {
  table = "gpt"
  size  = "256MiB"
  %[5]s
  partition "rootfs" {
    size = "96MiB"
    root = true
    filesystem {
      type  = "ext4"
      mount = ["noatime"]
    }
    contents { userland = "busybox" }
  }

  partition "bench" {
    grow = true
    filesystem {
      type       = "%[7]s"
      mountpoint = "/mnt/bench"
    }
  }
}

test "boot_time" "rootfs" {
  iterations = 3
}

test "fio" "seq" {
  on      = partition.bench
  rw      = ["write"]
  bs      = ["1MiB"]
  direct  = [true]
  size    = "8MiB"
  nrfiles = 1
}
`

// bootPartition is a FAT boot partition for the boot files, the first
// on the disk, where U-Boot's distro boot looks.
const bootPartition = `
  partition "boot" {
    size = "48MiB"
    filesystem { type = "vfat" }
  }
`

func needUBoot(t *testing.T, a arch.Arch) {
	t.Helper()
	for _, tool := range []string{"qemu-system-" + a.QEMU(), "apt-get", "fakeroot", "mkimage", "mcopy"} {
		testenv.Tool(t, tool)
	}
	if _, err := os.Stat("/usr/lib/u-boot/qemu_arm64/u-boot.bin"); err != nil {
		testenv.Missing(t, "Debian's u-boot-qemu")
	}
	if err := debpkg.CheckArch(context.Background(), a.Debian()); errors.Is(err, debpkg.ErrForeignArchNotConfigured) {
		testenv.Missing(t, err.Error())
	}
}

// TestUBootInQEMU boots a board of each architecture through Debian's
// U-Boot for QEMU from the image alone: the kernel, the initramfs and the
// command line reach the machine only through the image's boot files
// (boot.scr on x86_64, extlinux.conf on a FAT boot partition on arm64, on
// the root's /boot on arm). Each boot is divided into its phases, and the
// report draws them.
func TestUBootInQEMU(t *testing.T) {
	for _, tc := range []struct {
		a                      arch.Arch
		console, loader, parts string
	}{
		{arch.X86_64, "ttyS0,115200n8", "uboot", ""},
		{arch.ARM64, "ttyAMA0,115200n8", "extlinux", bootPartition},
		{arch.ARM, "ttyAMA0,115200n8", "extlinux", ""},
	} {
		t.Run(string(tc.a), func(t *testing.T) {
			needUBoot(t, tc.a)
			t.Parallel()
			block := "boot {}"
			if tc.parts != "" {
				block = "boot { partition = partition.boot }"
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "board.fsb.hcl")
			os.WriteFile(path, []byte(fmt.Sprintf(qemuBoardSpec, tc.a, tc.console, tc.loader, block, tc.parts, "", "ext4")), 0o644)
			s, p := loadSpec(t, path)
			ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
			defer cancel()
			job := testJob(t, s, p, filepath.Join(dir, "out"))
			job.Runner, job.HelperRunner = testbin.Runner(t, tc.a), testbin.Runner(t, "")
			job.QEMU.Accel, job.QEMU.Boot = "tcg", BootUBoot
			o := runJob(t, ctx, job)[p.Variants[0].Name]
			if o == nil {
				return
			}
			checkUBootRun(t, o)
		})
	}
}

func checkUBootRun(t *testing.T, o *Outcome) {
	t.Helper()
	count := map[string]int{}
	for _, r := range o.Summary.Results {
		if r.Status != "ok" {
			t.Errorf("%s %s/%s: %s %s", r.Recipe, r.Name, r.Case, r.Status, r.Error)
		}
		count[r.Recipe]++
		if r.Attrs["boot"] != BootUBoot {
			t.Errorf("%s: boot %q", r.Recipe, r.Attrs["boot"])
		}
		if r.Recipe != "boot_time" {
			continue
		}
		// Through U-Boot every boot has a bootloader phase and the
		// kernel's; all phases add up to power-on to prompt, which holds
		// root mount to prompt.
		boot, kern, total, host := value(r, "phase_bootloader"), value(r, "phase_kernel"), value(r, "host_power_on"), value(r, "host_boot")
		sum := 0.0
		for _, name := range console.PhaseNames {
			sum += value(r, "phase_"+name)
		}
		if boot <= 0 || kern <= 0 || host <= 0 || total < host+kern || sum < total-1e-6 || sum > total+1e-6 {
			t.Errorf("boot %d: bootloader %v s, kernel %v s, power-on to prompt %v s (phases %v s), root mount to prompt %v s",
				r.Iteration, boot, kern, total, sum, host)
		}
		t.Logf("boot %d: %v", r.Iteration, r.Metrics)
	}
	if count["boot_time"] != 3 || count["fio"] != 1 || count["fsbench"] != 1 {
		t.Errorf("results %v", count)
	}
	// The console shows U-Boot reading the image's own boot file.
	log, _ := os.ReadFile(o.Console)
	if !regexp.MustCompile(`Found (/boot/extlinux/extlinux.conf|/extlinux/extlinux.conf|U-Boot script /boot/boot.scr)`).Match(log) {
		t.Errorf("U-Boot did not read the image's boot file:\n%s", tail(o))
	}
	ins, err := report.Load([]string{o.Results})
	if err != nil {
		t.Fatal(err)
	}
	var phases *report.Chart
	for _, ch := range report.Build(ins, report.Options{}).Charts {
		if strings.Contains(ch.Slug, "boot-phases") {
			phases = ch
		}
	}
	if phases == nil || len(phases.Stack.Rows) != 1 || !strings.Contains(strings.Join(phases.Stack.Categories, " "), "bootloader") {
		t.Errorf("the report has no phase chart with the bootloader: %+v", phases)
	}
}

// A boot that cannot go on is diagnosed from the console in seconds: an
// image whose extlinux.conf names a root partition that is not there,
// and one whose boot file is gone.
func TestUBootFailuresDiagnosed(t *testing.T) {
	a := arch.ARM64
	needUBoot(t, a)
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "board.fsb.hcl")
	os.WriteFile(path, []byte(fmt.Sprintf(qemuBoardSpec, a, "ttyAMA0,115200n8", "extlinux",
		"boot { partition = partition.boot }", bootPartition, `root_wait = "5s"`, "ext4")), 0o644)
	s, p := loadSpec(t, path)
	v := p.Variants[0]
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	out := filepath.Join(dir, "out")
	bin := testbin.Runner(t, a)
	if _, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: out, SpecDir: s.Dir, Epoch: 315532800, Jobs: 1,
		Log: testLog(), Runner: bin, HelperRunner: testbin.Runner(t, ""), CacheDir: testbin.CacheDir()}); err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(out, v.Name)
	m, err := imagegen.ReadManifest(filepath.Join(vdir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(vdir, m.Images[0].File)
	fat := fmt.Sprintf("%s@@%d", img, m.Images[0].Partitions[0].Offset)
	conf := filepath.Join(dir, "extlinux.conf")
	if err := mtool("mcopy", "-n", "-i", fat, "::/extlinux/extlinux.conf", conf); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(conf)
	wrong := regexp.MustCompile(`root=PARTUUID=[0-9a-f-]+`).ReplaceAll(orig, []byte("root=PARTUUID=0badc0de-0000-4000-8000-000000000000"))
	if string(wrong) == string(orig) {
		t.Fatalf("extlinux.conf names no PARTUUID root:\n%s", orig)
	}
	// The initramfs of this image has the virtio driver alone (storage
	// vda): another disk is refused before QEMU starts.
	_, err = RunQEMU(ctx, Variant{Name: v.Name, Dir: vdir, Runner: bin, Bootargs: v.Bootargs},
		QEMU{Accel: "tcg", Disk: "nvme", MemoryMiB: 512, CPUs: 1, Boot: BootUBoot}, Options{Log: testLog()})
	if err == nil || !strings.Contains(err.Error(), "run it with -disk virtio") {
		t.Errorf("-disk nvme on an image for vda: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func() error
		reason string
		limit  time.Duration // from the line that shows it to the diagnosis
	}{
		{"wrong root", func() error {
			if err := os.WriteFile(conf, wrong, 0o644); err != nil {
				return err
			}
			return mtool("mcopy", "-o", "-i", fat, conf, "::/extlinux/extlinux.conf")
		}, "the root device did not appear within 5s", 5*time.Second + 3*time.Second},
		{"no boot file", func() error { return mtool("mdel", "-i", fat, "::/extlinux/extlinux.conf") },
			"the bootloader found nothing it could boot", 3 * time.Second},
	} {
		if err := tc.change(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		start := time.Now()
		o, err := RunQEMU(ctx, Variant{Name: v.Name, Dir: vdir, Runner: bin, Bootargs: v.Bootargs},
			QEMU{Accel: "tcg", Disk: "virtio", MemoryMiB: 512, CPUs: 1, Boot: BootUBoot}, Options{Log: testLog()})
		var bf *console.BootFailure
		if !errors.As(err, &bf) || !strings.Contains(bf.Reason, tc.reason) {
			t.Errorf("%s: %v, want %q (console: %s)", tc.name, err, tc.reason, tail(o))
			continue
		}
		// The diagnosis comes as soon as the console shows it: at U-Boot's
		// prompt, at the end of root_wait. (How long the boot takes to get
		// there is the emulated machine's speed: on an idle 2-core host
		// 2.6 s and 11.5 s from the boot's first byte, which the log
		// line gives.)
		late := time.Since(bf.Seen)
		if bf.Seen.IsZero() || late > tc.limit {
			t.Errorf("%s: diagnosed %v after the console showed it, want at most %v", tc.name, late, tc.limit)
		}
		t.Logf("%s: diagnosed %v after the boot began (%v after the run started, %v after the console showed it): %v", tc.name,
			time.Since(o.Summary.Boots[0].Start).Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond),
			late.Round(10*time.Millisecond), err)
	}
}

// mtool runs an mtools command on a FAT filesystem inside an image
// ("IMAGE@@OFFSET"), whose geometry mtools must not check.
func mtool(argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", argv[0], err, out)
	}
	return nil
}
