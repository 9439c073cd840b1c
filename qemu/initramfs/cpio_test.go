package initramfs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// These tests check the archive against GNU cpio, an implementation that
// does not share this package's assumptions, and against gzip -dc.

func runIn(t *testing.T, dir string, stdin []byte, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, errb.String())
	}
	// cpio -v lists on stderr; -t lists on stdout.
	return out.String() + errb.String()
}

func TestCpioList(t *testing.T) {
	cpio := testenv.Tool(t, "cpio")
	src, _ := hostFile(t)
	var buf bytes.Buffer
	build(t, NewWriter(&buf), src)
	out := runIn(t, t.TempDir(), buf.Bytes(), cpio, "-itv")
	t.Logf("cpio -itv:\n%s", out)
	// GNU cpio -tv: mode links owner group size date name [-> target]
	want := map[string]string{
		"dev":                       "drwxr-xr-x",
		"dev/console":               "crw-------",
		"bin":                       "drwxr-xr-x",
		"lib":                       "drwxr-xr-x",
		"lib/modules":               "drwx------",
		"init":                      "-rwxr-xr-x",
		"empty":                     "-rw-r--r--",
		"bin/odd":                   "-rwsr-x--x",
		"lib/modules/virtio_blk.ko": "-rw-r--r--",
		"sbin -> bin":               "lrwxrwxrwx",
		"lib/modules/abs -> /lib/modules/virtio_blk.ko": "lrwxrwxrwx",
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 {
			continue // the "N blocks" summary
		}
		if f[2] != "root" || f[3] != "root" {
			t.Errorf("%q: owner not root", line)
		}
		// The name starts after mode, links, owner, group, size (or
		// major, minor) and a three-field date.
		nameAt := 8
		if f[0][0] == 'c' {
			nameAt = 9
			if f[4] != "5," || f[5] != "1" {
				t.Errorf("%q: device numbers not 5, 1", line)
			}
		}
		got[strings.Join(f[nameAt:], " ")] = f[0]
	}
	for name, mode := range want {
		if got[name] != mode {
			t.Errorf("%s: cpio lists mode %q, want %q", name, got[name], mode)
		}
	}
	if len(got) != len(want) {
		t.Errorf("cpio listed %d entries, want %d: %v", len(got), len(want), got)
	}
}

func TestCpioExtract(t *testing.T) {
	cpio := testenv.Tool(t, "cpio")
	src, modData := hostFile(t)
	var buf bytes.Buffer
	build(t, NewWriter(&buf), src)
	dir := t.TempDir()
	root := os.Geteuid() == 0
	// --no-absolute-filenames is what keeps a bad archive from escaping dir;
	// the archive has no absolute names anyway.
	runIn(t, dir, buf.Bytes(), cpio, "-idmv", "--no-absolute-filenames")

	type want struct {
		mode   os.FileMode
		data   string
		target string
	}
	wants := map[string]want{
		"dev":                       {mode: os.ModeDir | 0o755},
		"bin":                       {mode: os.ModeDir | 0o755},
		"lib":                       {mode: os.ModeDir | 0o755},
		"lib/modules":               {mode: os.ModeDir | 0o700},
		"init":                      {mode: 0o755, data: "#!/bin/sh\necho hi\n"},
		"empty":                     {mode: 0o644},
		"lib/modules/virtio_blk.ko": {mode: 0o644, data: string(modData)},
		"sbin":                      {mode: os.ModeSymlink | 0o777, target: "bin"},
		"lib/modules/abs":           {mode: os.ModeSymlink | 0o777, target: "/lib/modules/virtio_blk.ko"},
	}
	if root {
		// setuid survives extraction only for the owner the archive names,
		// i.e. when cpio can chown to root.
		wants["bin/odd"] = want{mode: os.ModeSetuid | 0o751, data: "abcde"}
		wants["dev/console"] = want{mode: os.ModeDevice | os.ModeCharDevice | 0o600}
	}
	for name, w := range wants {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode() != w.mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), w.mode)
		}
		switch {
		case w.target != "":
			if got, _ := os.Readlink(p); got != w.target {
				t.Errorf("%s: target %q, want %q", name, got, w.target)
			}
		case fi.Mode().IsRegular():
			if got, _ := os.ReadFile(p); string(got) != w.data {
				t.Errorf("%s: %d bytes differ from the %d written", name, len(got), len(w.data))
			}
		}
		if fi.Mode()&os.ModeCharDevice != 0 {
			rdev := fi.Sys().(*syscall.Stat_t).Rdev
			if maj, min := (rdev>>8)&0xfff, rdev&0xff|(rdev>>12)&^0xff; maj != 5 || min != 1 {
				t.Errorf("%s: device %d,%d, want 5,1", name, maj, min)
			}
		}
	}
	if !root {
		t.Log("not root: dev/console and the setuid file were not compared")
	}
}

func TestGzipDecompresses(t *testing.T) {
	gz := testenv.Tool(t, "gzip")
	src, _ := hostFile(t)
	var plain, z bytes.Buffer
	build(t, NewWriter(&plain), src)
	build(t, NewGzipWriter(&z), src)
	cmd := exec.Command(gz, "-dc")
	cmd.Stdin = bytes.NewReader(z.Bytes())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gzip -dc: %v", err)
	}
	if !bytes.Equal(out, plain.Bytes()) {
		t.Errorf("gzip -dc gave %d bytes, want the %d-byte plain archive", len(out), plain.Len())
	}
}
