package bootinit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMainRefusesOutsideInitramfs runs Main in the test process: it must
// not mount, delete or power off anything here.
func TestMainRefusesOutsideInitramfs(t *testing.T) {
	if code := Main(); code != 2 {
		t.Errorf("Main() = %d, want 2", code)
	}
	err := checkInitramfs()
	if err == nil || !strings.Contains(err.Error(), "PID 1") {
		t.Errorf("checkInitramfs: %v", err)
	}
}

func TestLoadModulesList(t *testing.T) {
	dir := t.TempDir()
	if n, skipped, err := loadModules(filepath.Join(dir, "absent")); n != 0 || skipped != nil || err != nil {
		t.Errorf("no list: %d %v %v", n, skipped, err)
	}
	// Only paths that do not exist: the test must never load a module
	// into the host's kernel.
	list := filepath.Join(dir, "modules")
	missing := filepath.Join(dir, "lib/modules/x/kernel/fs/ext4/ext4.ko")
	os.WriteFile(list, []byte("# comment\n\n  "+missing+"  \n"), 0o644)
	_, _, err := loadModules(list)
	if err == nil || !strings.Contains(err.Error(), "loading module "+missing+" (listed in "+list+")") {
		t.Errorf("err = %v", err)
	}
}

func TestKernelFilesystems(t *testing.T) {
	p := filepath.Join(t.TempDir(), "filesystems")
	os.WriteFile(p, []byte("nodev\tsysfs\nnodev\ttmpfs\n\text3\n\text2\n\text4\nnodev\tdevtmpfs\n\txfs\n"), 0o644)
	got, err := KernelFilesystems(p)
	if err != nil || strings.Join(got, " ") != "ext3 ext2 ext4 xfs" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestLogger(t *testing.T) {
	dir := t.TempDir()
	kmsg, console := filepath.Join(dir, "kmsg"), filepath.Join(dir, "console")
	os.WriteFile(kmsg, nil, 0o644)
	os.WriteFile(console, nil, 0o644)
	printk := filepath.Join(dir, "printk")
	os.WriteFile(printk, []byte("7\t4\t1\t7\n"), 0o644)
	l := &logger{kmsgPath: kmsg, consolePath: console}
	l.readConsoleLevel(printk)

	// Shown by printk at console_loglevel 7: kmsg only.
	l.printf(levelNotice, "Mounted root (%s filesystem) on %s", "ext4", "/dev/vda2")
	// quiet: console_loglevel 4 hides notices, so the console gets it too.
	l.consoleLevel = 4
	l.printf(levelNotice, "two\nlines")
	k, _ := os.ReadFile(kmsg)
	c, _ := os.ReadFile(console)
	if want := "<5>fsbench-init: Mounted root (ext4 filesystem) on /dev/vda2\n<5>fsbench-init: two lines\n"; string(k) != want {
		t.Errorf("kmsg %q, want %q", k, want)
	}
	if want := "fsbench-init: two lines\r\n"; string(c) != want {
		t.Errorf("console %q, want %q", c, want)
	}

	// No /dev/kmsg (before devtmpfs): straight to the console.
	l.kmsgPath = filepath.Join(dir, "absent")
	l.consoleLevel = 8
	l.printf(levelErr, "error: x")
	c, _ = os.ReadFile(console)
	if !strings.HasSuffix(string(c), "fsbench-init: error: x\r\n") {
		t.Errorf("console %q", c)
	}
}

func TestRemoveTree(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"init", "etc/fsbench/modules", "lib/modules/r/kernel/a.ko"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte("x"), 0o644)
	}
	os.Symlink("/nowhere", filepath.Join(dir, "link"))
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		t.Fatal(err)
	}
	// Another device number: nothing may go.
	if err := removeTree(dir, st.Dev+1); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("other device: %d entries left, want 4", len(ents))
	}
	if err := removeTree(dir, st.Dev); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left", len(ents))
	}
}
