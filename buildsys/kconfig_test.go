package buildsys

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/recipes"
)

func TestRootFilesystemsBuiltInOthersModules(t *testing.T) {
	f := KernelConfig(loadPlan(t, matrixSpec))
	wantOptions(t, f, map[string]string{
		"EXT4_FS": "y", "F2FS_FS": "y", // root in some variant
		"XFS_FS": "m", "MODULES": "y", // only ever the bench partition
		"VIRTIO_BLK": "y", "VIRTIO_PCI": "y", "PCI": "y", "EFI_PARTITION": "y",
		"SERIAL_8250": "y", "SERIAL_8250_CONSOLE": "y",
		"DEVTMPFS": "y", "DEVTMPFS_MOUNT": "y", "PRINTK_TIME": "y", "AIO": "y",
		// No dm_flakey or power_loss test, no MBR.
		"DM_FLAKEY": "", "WATCHDOG": "", "I6300ESB_WDT": "", "MSDOS_PARTITION": "", "PCI_HOST_GENERIC": "",
	})
}

func TestRootInOneVariantIsBuiltIn(t *testing.T) {
	// ext4 is the bench partition of variant a and the root of variant b:
	// the one kernel of both must mount it as root.
	src := `
matrix "v" {
  values = {
    a = { root = "btrfs", bench = "ext4" }
    b = { root = "ext4", bench = "btrfs" }
  }
}
image "disk" {
  size = "1GiB"
  partition "rootfs" {
    size = "300MiB"
    root = true
    filesystem { type = matrix.v.root }
  }
  partition "bench" {
    grow = true
    filesystem { type = matrix.v.bench }
  }
}
`
	f := KernelConfig(loadPlan(t, src))
	wantOptions(t, f, map[string]string{"EXT4_FS": "y", "BTRFS_FS": "y", "MODULES": ""})
}

func TestReliabilityTests(t *testing.T) {
	src := `
board "qemu-arm64" {
  arch    = "arm64"
  storage = "vda"
}
image "disk" {
  table = "mbr"
  size  = "1GiB"
  partition "rootfs" {
    size = "300MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}
test "power_loss" "cut" {
  on         = partition.bench
  iterations = 2
}
test "dm_flakey" "faults" { on = partition.bench }
`
	f := KernelConfig(loadPlan(t, src))
	wantOptions(t, f, map[string]string{
		"MD": "y", "BLK_DEV_DM": "y", "DM_FLAKEY": "y",
		"WATCHDOG": "y", "WATCHDOG_CORE": "y", "I6300ESB_WDT": "y", // QEMU's watchdog on aarch64 too
		"PCI": "y", "PCI_HOST_GENERIC": "y", "MSDOS_PARTITION": "y", "EFI_PARTITION": "",
		"SERIAL_AMBA_PL011": "y", "SERIAL_AMBA_PL011_CONSOLE": "y", "SERIAL_8250": "",
	})
}

func TestRealBoardNotes(t *testing.T) {
	// A board fsbench does not know: its MMC host controller and watchdog
	// cannot be named, and QEMU's devices must not be guessed.
	src := `
board "beaglebone-black" {
  arch    = "arm"
  console = "ttyS0,115200n8"
  storage = "mmcblk1"
}
image "emmc" {
  size = "1GiB"
  partition "rootfs" {
    size = "300MiB"
    root = true
    filesystem { type = "vfat" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "btrfs" }
  }
}
test "power_loss" "cut" {
  on         = partition.bench
  iterations = 2
}
`
	f := KernelConfig(loadPlan(t, src))
	wantOptions(t, f, map[string]string{
		"MMC": "y", "MMC_BLOCK": "y", "MMC_SDHCI_PCI": "", "PCI": "", "I6300ESB_WDT": "",
		"VFAT_FS": "y", "NLS_CODEPAGE_437": "y", "NLS_ISO8859_1": "y", "BTRFS_FS": "m",
		"WATCHDOG": "y",
	})
	text := f.String()
	for _, want := range []string{"MMC host controller driver", "SoC's watchdog driver", "8250 variant"} {
		if !strings.Contains(text, want) {
			t.Errorf("no note about %q:\n%s", want, text)
		}
	}
}

func TestFeaturesAndCompression(t *testing.T) {
	src := `
image "disk" {
  size = "1GiB"
  partition "rootfs" {
    size = "300MiB"
    root = true
    filesystem {
      type     = "ext4"
      features = ["encrypt", "^metadata_csum"]
    }
  }
  partition "ro" {
    size = "64MiB"
    filesystem {
      type = "squashfs"
      tuning { compression = "xz" }
    }
  }
  partition "ro2" {
    size = "64MiB"
    filesystem {
      type = "erofs"
      tuning { compression = "lz4" }
    }
  }
}
`
	f := KernelConfig(loadPlan(t, src))
	wantOptions(t, f, map[string]string{
		"FS_ENCRYPTION": "y", "SQUASHFS": "m", "SQUASHFS_XZ": "y", "SQUASHFS_ZLIB": "",
		"EROFS_FS": "m", "EROFS_FS_ZIP": "y",
	})
}

func TestFragmentIsStable(t *testing.T) {
	p := loadPlan(t, matrixSpec)
	a, b := KernelConfig(p).String(), KernelConfig(p).String()
	if a != b {
		t.Fatalf("two renderings differ:\n%s\n---\n%s", a, b)
	}
	// Every option line appears once.
	seen := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		if strings.HasPrefix(l, "CONFIG_") {
			name, _, _ := strings.Cut(l, "=")
			if seen[name] {
				t.Errorf("%s twice:\n%s", name, a)
			}
			seen[name] = true
		}
	}
}

// What buildsys reads of every type is in the catalogue, and the packages
// it names are ones the build systems have: the options Buildroot calls
// its host and target packages by.
func TestTablesCoverCatalogue(t *testing.T) {
	for _, name := range filesystems.Names() {
		ft, _ := filesystems.Lookup(name)
		for _, p := range ft.Target.Buildroot {
			if !strings.HasPrefix(p, "BR2_PACKAGE_") || strings.HasPrefix(p, "BR2_PACKAGE_HOST_") {
				t.Errorf("%s: %s is no Buildroot target package", name, p)
			}
		}
		for _, tool := range ft.Tools {
			p, _ := ft.Program(tool)
			if p.BuildrootHost != "" && !strings.HasPrefix(p.BuildrootHost, "BR2_PACKAGE_HOST_") {
				t.Errorf("%s: %s is no Buildroot host package", name, p.BuildrootHost)
			}
			if p.YoctoNative != "" && !strings.HasSuffix(p.YoctoNative, "-native") {
				t.Errorf("%s: %s is no native recipe", name, p.YoctoNative)
			}
		}
	}
	// Every program a recipe runs or prefers on the target has its
	// package in both build systems.
	for _, r := range recipes.All() {
		for _, p := range append(append([]string(nil), r.Needs.Programs...), r.Needs.Prefers...) {
			if _, ok := buildrootPrograms[p]; !ok {
				t.Errorf("buildroot: no package for %s, which %s runs", p, r.Name)
			}
			if _, ok := yoctoPrograms[p]; !ok {
				t.Errorf("yocto: no package for %s, which %s runs", p, r.Name)
			}
		}
	}
}
