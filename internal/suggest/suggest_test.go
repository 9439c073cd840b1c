package suggest

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"fio", "fio", 0}, {"fio2", "fio", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"flaw", "lawn", 2}} {
		if got := levenshtein(c.a, c.b); got != c.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestClosest(t *testing.T) {
	opts := []string{"ext2", "ext3", "ext4", "btrfs", "fsync_latency", "nilfs2"}
	for in, want := range map[string]string{
		"ext5":    "ext4", // the nearer digit wins a tie
		"ext1":    "ext2",
		"EXT4":    "ext4",
		"btrf":    "btrfs",
		"fsync":   "fsync_latency",
		"nilfs-2": "nilfs2",
		"zfs":     "",
		"msdos":   "", // vfat is not among the options
		"":        "",
	} {
		if got := Closest(in, opts); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAliases(t *testing.T) {
	arches := []string{"x86_64", "arm", "arm64", "riscv64"}
	for in, want := range map[string]string{"aarch64": "arm64", "amd64": "x86_64", "armhf": "arm", "x86-64": "x86_64"} {
		if got := Closest(in, arches); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Closest("fat32", []string{"ext4", "vfat"}); got != "vfat" {
		t.Errorf("Closest(fat32) = %q, want vfat", got)
	}
}
