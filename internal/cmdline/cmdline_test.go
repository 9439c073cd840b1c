package cmdline

import (
	"strings"
	"testing"
)

func TestWordAcceptsRealArguments(t *testing.T) {
	for _, w := range []string{
		"console=ttyS0,115200n8", "root=PARTUUID=0b1c2d3e-0102-4304-8506-0708090a0b0c", "rootfstype=ext4",
		"rootflags=data=ordered,commit=5", "rootwait", "ro", "init=/sbin/init", "quiet", "loglevel=7",
		"fsbench.finally=poweroff", "mtdparts=spi0.0:512k(u-boot),-(rootfs);nand:1G(data)", "isolcpus=1-3",
		"root=/dev/mmcblk0p2", "subvol=@root", "video=HDMI-A-1:1920x1080@60", "a'b",
	} {
		if err := Word(w); err != nil {
			t.Errorf("Word(%q): %v", w, err)
		}
	}
}

// The hostile words: each would add an argument, a line or a command to
// one of the generated files.
var hostile = []string{
	"", "a b", "subvol=a init=/bin/sh", "a\tb", "a\nsetenv bootcmd reset", "a\r", "x\x00y", "x\x1b[2J",
	`"; reset; echo "`, `a"b`, `a\b`, "a`reboot`", "$(reset)", "${bootcmd}", "#comment", "a#b",
	"caf\u00e9", "x\x7f", strings.Repeat("a", 4097),
}

func TestWordRefusesHostileWords(t *testing.T) {
	for _, w := range hostile {
		if err := Word(w); err == nil {
			t.Errorf("Word(%q) accepted it", w)
		}
		if err := MountOption(w); err == nil {
			t.Errorf("MountOption(%q) accepted it", w)
		}
		if _, err := Line([]string{"rootwait", w}); err == nil {
			t.Errorf("Line accepted %q", w)
		}
	}
	if err := MountOption("noatime,sync"); err == nil {
		t.Error("MountOption accepted two options")
	}
}

// What Line writes reads back, with the kernel's rules, as the same words.
func TestLineReadsBack(t *testing.T) {
	words := []string{"root=PARTUUID=x", "rootflags=data=journal,noatime", "console=ttyAMA0,115200", "a'b"}
	line, err := Line(words)
	if err != nil {
		t.Fatal(err)
	}
	if got := Split(line); strings.Join(got, "|") != strings.Join(words, "|") {
		t.Errorf("Split(%q) = %q", line, got)
	}
	if got := Split(`a "b c" d="e f"`); strings.Join(got, "|") != "a|b c|d=e f" {
		t.Errorf("Split of quotes: %q", got)
	}
}

func TestFstabField(t *testing.T) {
	if got := FstabField(`/mnt/my data\x` + "\t\n"); got != `/mnt/my\040data\134x\011\012` {
		t.Errorf("FstabField = %q", got)
	}
	for _, p := range []string{"/a\nb", "/a\rb", "/a\x00"} {
		if Path(p) == nil {
			t.Errorf("Path(%q) accepted it", p)
		}
	}
	if Path("/mnt/my data") != nil {
		t.Error("Path refused a space")
	}
}

func TestRPiConfigLine(t *testing.T) {
	for _, ok := range []string{"dtoverlay=vc4-kms-v3d", "gpu_mem=64", "enable_uart=1", "dtparam=sd_overclock=100", "# a comment", "", "disable_splash=1", "max_framebuffers 2"} {
		if err := RPiConfigLine(ok); err != nil {
			t.Errorf("RPiConfigLine(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{
		"gpu_mem=64\nkernel=evil.img", "enable_uart=1\r", "a\x00b", // a second line
		"[pi4]", " [all]", // a section holding fsbench's lines
		"kernel=evil.img", "KERNEL=x", "cmdline=other.txt", "os_prefix=evil/", "initramfs x followkernel",
		"device_tree=x.dtb", "include other.txt", "arm_64bit=0", "=1",
	} {
		if err := RPiConfigLine(bad); err == nil {
			t.Errorf("RPiConfigLine(%q) = nil, want an error", bad)
		}
	}
}
