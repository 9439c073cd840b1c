// Package userland, part of image generation, assembles a minimal root
// filesystem for specs that have no Buildroot or Yocto rootfs (the
// quickstart, CI): Debian's busybox-static, fetched for the board's
// architecture with package debpkg, with an inittab that runs the start
// scripts and a getty on the board's console, the way a Buildroot busybox
// system boots. fsbench build
// stages it as the root partition's contents; the runner's start hook (see
// package payload) is one of the scripts it runs.
//
// Busybox has no filesystem checkers and no mkfs tools, so FetchTools adds
// the real ones a test plan runs on the target (see Tools): programs and
// the shared libraries their ELF files name, from Debian's packages for
// the board's architecture. It never installs a package on the host, never
// runs or copies a maintainer script, and never takes a file from the
// host's own root: every library comes from a fetched package.
package userland

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/wire/arch"
)

// Busybox is one fetched busybox-static package.
type Busybox struct {
	Package debpkg.Package
	Binary  string // the static busybox executable in the cache
}

// FetchBusybox returns Debian's current busybox-static for arch (the
// spec's board arch), from cacheDir or downloaded into it.
func FetchBusybox(ctx context.Context, log logrus.FieldLogger, cacheDir string, a arch.Arch) (*Busybox, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("busybox userland: no Debian architecture for %q", a)
	}
	da := a.Debian()
	key := memoKey(cacheDir, da)
	if b, ok := busyboxMemo.Load(key); ok {
		return b.(*Busybox), nil
	}
	p, err := debpkg.Candidate(ctx, log, cacheDir, "busybox-static", da)
	if err != nil {
		return nil, fmt.Errorf("busybox userland: %w", err)
	}
	check := func(dir string) error {
		_, err := os.Stat(filepath.Join(dir, "bin", "busybox"))
		return err
	}
	dir, err := debpkg.Fetch(ctx, log, cacheDir, p, check)
	if err != nil {
		return nil, fmt.Errorf("busybox userland: %w", err)
	}
	bb := &Busybox{Package: p, Binary: filepath.Join(dir, "bin", "busybox")}
	busyboxMemo.Store(key, bb)
	return bb, nil
}

// Options shape the userland.
type Options struct {
	// Console is the kernel's console= value, "ttyS0,115200n8": the getty
	// runs there.
	Console  string
	Hostname string
	// RootFlags are the root filesystem's VFS mount flags (noatime, ...),
	// which the kernel's rootflags= cannot carry: the start script
	// remounts / with them.
	RootFlags []string
	// Epoch is every file's mtime.
	Epoch int64
}

// Path is the userland's PATH: the start scripts (and so the runner they
// start) and login shells search these directories.
const Path = "/bin:/sbin:/usr/bin:/usr/sbin"

// Applets are the busybox commands the userland links, by directory:
// enough to boot, log in, look around, mount, and run the start scripts.
var Applets = map[string][]string{
	"bin": {"ash", "awk", "basename", "cat", "chgrp", "chmod", "chown", "cp", "cut", "date", "dd", "df",
		"dirname", "dmesg", "du", "echo", "env", "false", "find", "free", "grep", "gunzip", "gzip", "head",
		"hexdump", "hostname", "id", "kill", "killall", "less", "ln", "login", "ls", "md5sum", "mkdir",
		"mknod", "mktemp", "more", "mount", "mv", "nproc", "pidof", "printf", "ps", "pwd", "readlink",
		"realpath", "rm", "rmdir", "sed", "seq", "sh", "sha256sum", "sleep", "sort", "stat", "stty", "sync",
		"tail", "tar", "tee", "test", "time", "timeout", "top", "touch", "tr", "true", "truncate", "umount",
		"uname", "uniq", "uptime", "vi", "watch", "wc", "which", "xargs", "yes"},
	"sbin": {"blockdev", "fdisk", "findfs", "fstrim", "getty", "halt", "init", "insmod", "losetup", "lsmod",
		"mdev", "modprobe", "poweroff", "reboot", "rmmod", "swapoff", "swapon", "switch_root", "sysctl", "watchdog"},
}

// WriteTar writes the userland as a tar archive: owners 0:0, mtimes at
// Epoch, entries in a fixed order, so the same busybox and options give the
// same bytes.
func (b *Busybox) WriteTar(w io.Writer, opt Options) error {
	tty, baud := consoleTTY(opt.Console)
	host := opt.Hostname
	if host == "" {
		host = "fsbench"
	}
	mtime := time.Unix(opt.Epoch, 0)
	tw := tar.NewWriter(w)
	hdr := func(h *tar.Header) *tar.Header {
		h.ModTime, h.Uname, h.Gname, h.Format = mtime, "root", "root", tar.FormatPAX
		return h
	}
	for _, d := range []struct {
		name string
		mode int64
	}{
		{"bin", 0o755}, {"dev", 0o755}, {"etc", 0o755}, {"etc/init.d", 0o755}, {"mnt", 0o755},
		{"proc", 0o555}, {"root", 0o700}, {"run", 0o755}, {"sbin", 0o755}, {"sys", 0o555},
		{"tmp", 0o1777}, {"usr", 0o755}, {"usr/bin", 0o755}, {"usr/sbin", 0o755},
		{"var", 0o755}, {"var/lib", 0o755}, {"var/log", 0o755}, {"var/tmp", 0o1777},
	} {
		if err := tw.WriteHeader(hdr(&tar.Header{Typeflag: tar.TypeDir, Name: d.name + "/", Mode: d.mode})); err != nil {
			return err
		}
	}
	bin, err := os.Open(b.Binary)
	if err != nil {
		return err
	}
	defer bin.Close()
	fi, err := bin.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(hdr(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: fi.Size()})); err != nil {
		return err
	}
	if _, err := io.Copy(tw, bin); err != nil {
		return err
	}
	for _, dir := range []string{"bin", "sbin"} {
		names := append([]string(nil), Applets[dir]...)
		sort.Strings(names)
		target := "busybox"
		if dir != "bin" {
			target = "../bin/busybox"
		}
		for _, n := range names {
			h := &tar.Header{Typeflag: tar.TypeSymlink, Name: dir + "/" + n, Linkname: target, Mode: 0o777}
			if err := tw.WriteHeader(hdr(h)); err != nil {
				return err
			}
		}
	}
	// /etc/mtab is the kernel's mount table, as on any Linux system:
	// mkfs.nilfs2 and others refuse to run without it.
	mtab := &tar.Header{Typeflag: tar.TypeSymlink, Name: "etc/mtab", Linkname: "../proc/self/mounts", Mode: 0o777}
	if err := tw.WriteHeader(hdr(mtab)); err != nil {
		return err
	}
	files := []struct {
		name string
		mode int64
		body string
	}{
		{"etc/fstab", 0o644, fstab},
		{"etc/group", 0o644, "root:x:0:\ntty:x:5:\n"},
		{"etc/hostname", 0o644, host + "\n"},
		{"etc/init.d/rcS", 0o755, rcS(opt.RootFlags)},
		{"etc/inittab", 0o644, fmt.Sprintf(inittab, tty, baud, tty)},
		{"etc/passwd", 0o644, "root::0:0:root:/root:/bin/sh\n"},
		{"etc/profile", 0o644, "export PATH=" + Path + "\nexport PS1='\\h:\\w\\$ '\n"},
		{"etc/shadow", 0o600, "root::19000:0:99999:7:::\n"},
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.body))}
		if err := tw.WriteHeader(hdr(h)); err != nil {
			return err
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			return err
		}
	}
	return tw.Close()
}

// consoleTTY splits "ttyS0,115200n8" into the device and its speed.
func consoleTTY(console string) (tty, baud string) {
	tty, opts, _ := strings.Cut(console, ",")
	if tty == "" {
		tty = "console"
	}
	baud = "115200"
	end := strings.IndexFunc(opts, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(opts)
	}
	if end > 0 {
		baud = opts[:end]
	}
	return tty, baud
}

const fstab = `# <file system> <mount pt> <type> <options> <dump> <pass>
proc     /proc     proc     defaults 0 0
sysfs    /sys      sysfs    defaults 0 0
devpts   /dev/pts  devpts   defaults,gid=5,mode=620 0 0
tmpfs    /dev/shm  tmpfs    mode=1777 0 0
tmpfs    /tmp      tmpfs    mode=1777 0 0
tmpfs    /run      tmpfs    mode=0755,nosuid,nodev 0 0
`

// inittab: the start scripts, then a getty on the console. Its prompt
// ("fsbench login:") is where boot_time's host measurement ends.
const inittab = `::sysinit:/etc/init.d/rcS
%s::respawn:/sbin/getty -L %s %s vt100
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/umount -a -r
::shutdown:/sbin/swapoff -a
`

// rcS mounts the virtual filesystems, applies the root's VFS flags and
// runs /etc/init.d/S??* in order, as Buildroot's does. It sets PATH itself
// rather than rely on what init passes on, since the runner it starts
// finds the checkers and mkfs tools there.
func rcS(rootFlags []string) string {
	remount := ""
	if len(rootFlags) > 0 {
		remount = "mount -o remount," + strings.Join(rootFlags, ",") + " /\n"
	}
	return `#!/bin/sh
export PATH=` + Path + `
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -a
` + remount + `hostname -F /etc/hostname
for s in /etc/init.d/S??*; do
	[ -x "$s" ] || continue
	"$s" start
done
`
}
