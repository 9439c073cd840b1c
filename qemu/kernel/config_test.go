package kernel

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/arch"
)

// options fsbench cares about: root filesystems, the virtio disk, dm-flakey
// for power-loss tests, and the i6300esb watchdog QEMU offers.
var testOptions = []string{
	"CONFIG_EXT4_FS", "CONFIG_VIRTIO_BLK", "CONFIG_F2FS_FS", "CONFIG_NILFS2_FS",
	"CONFIG_BTRFS_FS", "CONFIG_XFS_FS", "CONFIG_VFAT_FS", "CONFIG_DM_FLAKEY",
	"CONFIG_I6300ESB_WDT", "CONFIG_VIRTIO_PCI", "CONFIG_PVH", "CONFIG_KERNEL_XZ",
	"CONFIG_MODULE_COMPRESS_NONE",
}

func TestBuiltinMatchesGrep(t *testing.T) {
	k := testKernel(t)
	for _, opt := range testOptions {
		// grep exits 1 when nothing matches: that is the "not set" answer.
		out, _ := exec.Command("grep", "-E", "^"+opt+"=", k.Config).Output()
		want := strings.TrimPrefix(strings.TrimSpace(string(out)), opt+"=")
		y, m, err := k.Builtin(opt)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if y {
			got = "y"
		} else if m {
			got = "m"
		}
		if (want == "y" || want == "m" || want == "") && got != want {
			t.Errorf("Builtin(%s) = %q, grep says %q", opt, got, want)
		}
		t.Logf("%s=%s", opt, want)
	}
	if y, m, _ := k.Builtin("EXT4_FS"); !y && !m {
		t.Error("Builtin without the CONFIG_ prefix found nothing")
	}
}

func TestReadConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config")
	os.WriteFile(p, []byte("# comment\nCONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\nCONFIG_D=\"x=y\"\n"), 0o644)
	k := &Kernel{Config: p}
	for opt, want := range map[string][2]bool{"A": {true, false}, "CONFIG_B": {false, true}, "C": {}, "D": {}, "E": {}} {
		if y, m, _ := k.Builtin(opt); [2]bool{y, m} != want {
			t.Errorf("Builtin(%s) = %v, %v; want %v", opt, y, m, want)
		}
	}
}

func TestKernelDep(t *testing.T) {
	for _, tc := range []struct {
		in       string
		a        arch.Arch
		pkg, ver string
	}{
		{"linux-image-6.1.0-57-amd64 (= 6.1.192-3)", arch.X86_64, "linux-image-6.1.0-57-amd64", "6.1.192-3"},
		{"linux-image-6.1.0-57-arm64:arm64 (= 6.1.192-3)", arch.ARM64, "linux-image-6.1.0-57-arm64", "6.1.192-3"},
		{"linux-image-6.12.9-amd64", arch.X86_64, "linux-image-6.12.9-amd64", ""},
		{"foo, linux-image-6.1.0-57-amd64 (= 6.1.192-3), bar", arch.X86_64, "linux-image-6.1.0-57-amd64", "6.1.192-3"},
		{"linux-image-6.1.0-57-armmp-lpae (= 6.1.192-3)", arch.ARM, "linux-image-6.1.0-57-armmp-lpae", "6.1.192-3"},
		{"linux-image-6.1.0-57-armmp (= 6.1.192-3)", arch.ARM, "linux-image-6.1.0-57-armmp", "6.1.192-3"},
	} {
		pkg, ver, err := kernelDep(tc.in, tc.a)
		if err != nil || pkg != tc.pkg || ver != tc.ver {
			t.Errorf("kernelDep(%q) = %q, %q, %v", tc.in, pkg, ver, err)
		}
	}
	if _, _, err := kernelDep("linux-image-6.1.0-57-amd64", arch.ARM64); err == nil {
		t.Error("kernelDep accepted a kernel of another architecture")
	}
	if _, _, err := kernelDep("linux-image-6.1.0-57-arm64", arch.ARM); err == nil {
		t.Error("kernelDep took an arm64 kernel for 32-bit ARM")
	}
}
