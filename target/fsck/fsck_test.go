package fsck

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/runplan"
)

func TestCheckerArgv(t *testing.T) {
	for _, c := range []struct {
		fs              string
		check           []string
		force, readOnly bool
		want            string
	}{
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, true, true, "e2fsck -fn /dev/x"},
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, false, true, "e2fsck -n /dev/x"},
		{"ext4", []string{"e2fsck", "-fn", "{device}"}, true, false, "e2fsck -fp /dev/x"},
		{"ext2", []string{"/sbin/fsck.ext2", "-v", "-y", "-E", "journal_only", "{device}"}, true, true, "/sbin/fsck.ext2 -fn -v -E journal_only /dev/x"},
		{"f2fs", []string{"fsck.f2fs", "--dry-run", "{device}"}, true, true, "fsck.f2fs -f --dry-run /dev/x"},
		{"f2fs", []string{"fsck.f2fs", "--dry-run", "{device}"}, false, false, "fsck.f2fs -a /dev/x"},
		{"btrfs", []string{"btrfs", "check", "--readonly", "{device}"}, true, true, "btrfs check --readonly /dev/x"},
		{"btrfs", []string{"btrfs", "check", "--readonly", "{device}"}, true, false, "btrfs check --repair --force /dev/x"},
		{"xfs", []string{"xfs_repair", "-n", "{device}"}, true, true, "xfs_repair -n /dev/x"},
		{"xfs", []string{"xfs_repair", "-n", "{device}"}, true, false, "xfs_repair /dev/x"},
		{"vfat", []string{"fsck.vfat", "-n", "{device}"}, true, false, "fsck.vfat -a /dev/x"},
		{"erofs", []string{"fsck.erofs", "--extract", "{device}"}, true, true, "fsck.erofs --extract /dev/x"},
		{"xfs", []string{"xfs_repair", "-n"}, true, true, "xfs_repair -n /dev/x"},
	} {
		argv, err := Argv(&runplan.Partition{Name: "p", FS: c.fs, Device: "/dev/x", Check: c.check}, c.force, c.readOnly)
		if err != nil || strings.Join(argv, " ") != c.want {
			t.Errorf("%s %q force=%v read_only=%v: %q, %v; want %q", c.fs, c.check, c.force, c.readOnly, argv, err, c.want)
		}
	}
	for fs, msg := range map[string]string{"nilfs2": "nilfs2 has no offline checker (it recovers", "ext4": "partition p (ext4) has no checker in the plan"} {
		p := &runplan.Partition{Name: "p", FS: fs, Device: "/dev/x"}
		if fs == "nilfs2" {
			p.NoCheck = "nilfs2 has no offline checker (it recovers from its log at mount)"
		}
		if _, err := Argv(p, true, true); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want an error saying %q", fs, err, msg)
		}
	}
}

func TestCheckerVerdict(t *testing.T) {
	e2 := []string{"e2fsck", "-fn", "/dev/x"}
	for code, want := range map[int]string{0: "clean", 1: "errors corrected", 2: "errors corrected", 3: "errors corrected"} {
		if got, err := Verdict(e2, code); got != want || err != nil {
			t.Errorf("e2fsck exit %d: %q, %v", code, got, err)
		}
	}
	for code, msg := range map[int]string{4: "errors left uncorrected", 8: "operational error", 12: "errors left uncorrected, operational error", 32: "cancelled"} {
		if _, err := Verdict(e2, code); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("e2fsck exit %d: %v, want %q", code, err, msg)
		}
	}
	if _, err := Verdict([]string{"xfs_repair", "-n", "/dev/x"}, 1); err == nil {
		t.Errorf("xfs_repair -n exit 1 (corruption found) taken for clean")
	}
}
