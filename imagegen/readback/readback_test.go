package readback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"golang.org/x/sys/unix"
)

func run(t *testing.T, argv ...string) {
	t.Helper()
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

func entry(p string, typ Type, perm uint32) Entry {
	return Entry{Path: p, Type: typ, Perm: perm, Holds: All}
}

func file(p string, perm uint32, data string) Entry {
	e := entry(p, File, perm)
	e.Size = int64(len(data))
	e.SHA256 = map[string]string{
		"":      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"hello": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"world": "486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7",
	}[data]
	return e
}

func TestDiff(t *testing.T) {
	a := NewListing(
		entry("/", Dir, 0o755),
		file("/a", 0o644, "hello"),
		func() Entry { e := file("/b", 0o4755, "hello"); e.Link = 1; return e }(),
		func() Entry { e := file("/c", 0o4755, "hello"); e.Link = 1; return e }(),
		func() Entry { e := entry("/dev", Char, 0o666); e.Major, e.Minor = 1, 3; return e }(),
		func() Entry { e := entry("/l", Symlink, 0o777); e.Target = "a"; return e }(),
		func() Entry { e := file("/x", 0o600, ""); e.UID, e.GID = 1000, 1000; return e }(),
		func() Entry { e := entry("/y", Dir, 0o755); e.Xattrs = []string{`user.b="2"`, `user.a="1"`}; return e }(),
		entry("/gone", Dir, 0o755),
	)
	if d := a.Diff(a); len(d) != 0 {
		t.Errorf("a listing differs from itself: %q", d)
	}
	b := NewListing(
		entry("/", Dir, 0o755),
		file("/a", 0o644, "world"),
		file("/b", 0o755, "hello"),
		file("/c", 0o4755, "hello"),
		func() Entry { e := entry("/dev", Char, 0o666); e.Major, e.Minor = 0, 0; return e }(),
		func() Entry { e := entry("/l", Symlink, 0o777); e.Target = "b"; return e }(),
		file("/x", 0o600, ""),
		func() Entry { e := entry("/y", Dir, 0o755); e.Xattrs = []string{`user.a="1"`}; return e }(),
		entry("/new", File, 0o644),
	)
	got := strings.Join(a.Diff(b), "\n")
	for _, w := range []string{
		`"/a": sha256: want 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824, got 486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7`,
		`"/b": mode: want 4755, got 0755`,
		`"/b": hard links with: want ["/c"], got none`,
		`"/c": hard links with: want ["/b"], got none`,
		`"/dev": device: want 1,3, got 0,0`,
		`"/gone": missing (want "/gone" dir 0755 0:0)`,
		`"/l": symlink target: want "a", got "b"`,
		`"/new": unexpected (got "/new" file 0644 0:0 size=0 sha256=)`,
		`"/x": owner: want 1000:1000, got 0:0`,
		`"/y": xattrs: want [user.a="1" user.b="2"], got [user.a="1"]`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("Diff lacks %q; got:\n%s", w, got)
		}
	}
	if strings.Contains(got, `"/a": size`) {
		t.Errorf("Diff reports equal sizes:\n%s", got)
	}
	if n := len(a.Diff(b)); n != 10 {
		t.Errorf("Diff found %d differences, want 10:\n%s", n, got)
	}

	// A FAT listing compares names, types, sizes and data only.
	fat, err := a.Project(Data)
	if err != nil {
		t.Fatal(err)
	}
	if d := fat.Diff(a); len(d) != 2 {
		// /dev is gone; /l became a copy of /a, a file where a has a symlink.
		t.Errorf("FAT projection against the original: %q", d)
	}
}

func TestProject(t *testing.T) {
	src := NewListing(
		entry("/", Dir, 0o755),
		file("/etc/hostname", 0o644, "hello"),
		entry("/etc", Dir, 0o755),
		entry("/usr", Dir, 0o755),
		entry("/usr/lib", Dir, 0o755),
		file("/usr/lib/libc.so", 0o755, "world"),
		func() Entry { e := entry("/lib", Symlink, 0o777); e.Target = "usr/lib"; return e }(),
		func() Entry { e := entry("/usr/lib/self", Symlink, 0o777); e.Target = "../lib/libc.so"; return e }(),
		func() Entry { e := entry("/abs", Symlink, 0o777); e.Target = "/etc/hostname"; return e }(),
		func() Entry { e := entry("/dangling", Symlink, 0o777); e.Target = "nowhere"; return e }(),
		func() Entry { e := entry("/fifo", FIFO, 0o644); return e }(),
		func() Entry { e := file("/h1", 0o644, "hello"); e.Link = 7; e.UID = 5; return e }(),
		func() Entry { e := file("/h2", 0o644, "hello"); e.Link = 7; e.UID = 5; return e }(),
	)
	got, err := src.Project(Data)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range got {
		paths = append(paths, e.Path+":"+string(e.Type))
		if e.Link != 0 || e.UID != 0 || e.Perm != 0 || e.Holds != Data {
			t.Errorf("%s keeps fields FAT cannot hold: %s", e.Path, e)
		}
	}
	want := "/:dir /abs:file /etc:dir /etc/hostname:file /h1:file /h2:file /lib:dir /lib/libc.so:file /lib/self:file " +
		"/usr:dir /usr/lib:dir /usr/lib/libc.so:file /usr/lib/self:file"
	if strings.Join(paths, " ") != want {
		t.Errorf("Project(Data) =\n%s\nwant %s", got, want)
	}
	if e, _ := got.Lookup("/lib/self"); e.SHA256 != file("", 0, "world").SHA256 {
		t.Errorf("/lib/self is not a copy of libc.so: %s", e)
	}
	if e, _ := got.Lookup("/abs"); e.Size != 5 {
		t.Errorf("/abs is not a copy of the image's /etc/hostname: %s", e)
	}

	// Without hard links only, the group goes and the rest stays.
	nolinks, err := src.Project(All &^ HardLinks)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := nolinks.Lookup("/h1"); e.Link != 0 || e.UID != 5 {
		t.Errorf("Project(All &^ HardLinks) /h1 = %s", e)
	}
	if e, _ := nolinks.Lookup("/lib"); e.Type != Symlink {
		t.Errorf("Project(All &^ HardLinks) changed a symlink: %s", e)
	}

	loop := NewListing(entry("/", Dir, 0o755), entry("/d", Dir, 0o755),
		func() Entry { e := entry("/d/up", Symlink, 0o777); e.Target = ".."; return e }())
	if _, err := loop.Project(Data); err == nil {
		t.Error("a symlink to its own parent projected onto FAT without an error")
	}
}

// makeTree writes a tree with what filesystems must keep. names adds names
// FAT cannot hold (quotes, a backslash, a newline); devices adds a
// character device (root only) and a FIFO.
func makeTree(t *testing.T, names, devices bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755))
	must(os.Mkdir(filepath.Join(dir, "private"), 0o700))
	write := func(name string, data []byte, mode os.FileMode) {
		p := filepath.Join(dir, name)
		must(os.WriteFile(p, data, 0o600))
		must(os.Chmod(p, mode))
	}
	write("empty", nil, 0o644)
	write("hello", []byte("hello\n"), 0o644)
	write("zeros61", make([]byte, 61), 0o644) // ext4 inline data: 60 bytes in the inode, i_size 61
	write("big", []byte(strings.Repeat("0123456789abcdef", 70000)), 0o640)
	write("setuid", []byte("#!/bin/sh\n"), 0o4755)
	write("sub/deeper/ünï 😀", []byte("x"), 0o600)
	write("private/key", []byte("k"), 0o400)
	must(os.Link(filepath.Join(dir, "hello"), filepath.Join(dir, "sub", "hello-again")))
	must(os.Symlink("hello", filepath.Join(dir, "fast")))
	must(os.Symlink(strings.Repeat("long/", 30)+"target", filepath.Join(dir, "slow")))
	must(os.Chmod(dir, 0o755))
	if names {
		write(`with "quotes" and \ backslash`, []byte("q"), 0o644)
		write("new\nline", []byte("n"), 0o644)
	}
	if devices {
		must(unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
		if os.Geteuid() == 0 {
			must(unix.Mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
		}
	}
	// User xattrs where the host filesystem has them: a short printable
	// value, a long one and a binary one.
	for name, value := range map[string]string{
		"user.short": "v",
		"user.long":  strings.Repeat("y", 300),
		"user.bin":   "\x00\xff\x01",
	} {
		if err := unix.Setxattr(filepath.Join(dir, "hello"), name, []byte(value), 0); err != nil {
			t.Logf("no xattrs in the test tree: %v", err)
			break
		}
	}
	return dir
}

func compare(t *testing.T, fsType, tree, image string) {
	t.Helper()
	src, err := ListDir(tree)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Expect(fsType, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := List(context.Background(), fsType, image)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range want.Diff(got) {
		t.Error(d)
	}
	if t.Failed() {
		t.Logf("source:\n%s\nread back:\n%s", src, got)
	}
}

// TestListExt reads trees that mke2fs -d made, with and without inline
// data, and ext2: debugfs output with odd names, fast and slow symlinks,
// long and binary xattrs, hard links and devices.
func TestListExt(t *testing.T) {
	testenv.Tool(t, "mke2fs")
	testenv.Tool(t, "debugfs")
	tree := makeTree(t, true, true)
	for _, c := range []struct{ fs, features string }{
		{"ext4", ""}, {"ext4", "inline_data"}, {"ext2", ""},
	} {
		t.Run(c.fs+"-"+c.features, func(t *testing.T) {
			image := filepath.Join(t.TempDir(), "ext.img")
			// mke2fs gives the root directory to root:root unless told,
			// even when the tree is the user's.
			argv := []string{"mke2fs", "-q", "-F", "-t", c.fs, "-d", tree,
				"-E", fmt.Sprintf("root_owner=%d:%d", os.Getuid(), os.Getgid())}
			if c.features != "" {
				argv = append(argv, "-O", c.features)
			}
			run(t, append(argv, image, "16M")...)
			compare(t, c.fs, tree, image)
		})
	}
}

func needRoot(t *testing.T, fsType string) {
	t.Helper()
	for _, tool := range Tools(fsType) {
		testenv.Tool(t, tool)
	}
	if os.Geteuid() != 0 {
		if Mounts(fsType) {
			testenv.Missing(t, "root to mount")
		}
		testenv.Missing(t, "root to read "+fsType)
	}
}

func TestListSquashfs(t *testing.T) {
	testenv.Tool(t, "mksquashfs")
	needRoot(t, "squashfs")
	tree := makeTree(t, true, true)
	image := filepath.Join(t.TempDir(), "sq.img")
	run(t, "mksquashfs", tree, image, "-noappend", "-no-progress", "-quiet")
	compare(t, "squashfs", tree, image)
}

func TestListErofs(t *testing.T) {
	testenv.Tool(t, "mkfs.erofs")
	needRoot(t, "erofs")
	tree := makeTree(t, true, true)
	image := filepath.Join(t.TempDir(), "erofs.img")
	run(t, "mkfs.erofs", "--quiet", image, tree)
	compare(t, "erofs", tree, image)
}

// TestListBtrfs leaves device nodes out: mkfs.btrfs 6.2 --rootdir stores
// every device number as 0,0.
func TestListBtrfs(t *testing.T) {
	testenv.Tool(t, "mkfs.btrfs")
	needRoot(t, "btrfs")
	tree := makeTree(t, true, false)
	image := filepath.Join(t.TempDir(), "btrfs.img")
	run(t, "truncate", "-s", "128M", image)
	run(t, "mkfs.btrfs", "-q", "-f", "--rootdir", tree, image)
	compare(t, "btrfs", tree, image)
}

func TestListXFS(t *testing.T) {
	testenv.Tool(t, "mkfs.xfs")
	needRoot(t, "xfs")
	image := filepath.Join(t.TempDir(), "xfs.img")
	run(t, "truncate", "-s", "300M", image)
	run(t, "mkfs.xfs", "-q", "-f", image)
	want := NewListing(Entry{Path: "/", Type: Dir, Perm: 0o755, Holds: All})
	got, err := List(context.Background(), "xfs", image)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range want.Diff(got) {
		t.Error(d)
	}
}

// TestListVFAT: names, sizes and data, decoded from UTF-16 long names.
func TestListVFAT(t *testing.T) {
	testenv.Tool(t, "mkfs.vfat")
	testenv.Tool(t, "mcopy")
	tree := makeTree(t, false, false)
	// mcopy copies what a symlink points to; these point inside the tree.
	os.Remove(filepath.Join(tree, "slow"))
	image := filepath.Join(t.TempDir(), "fat.img")
	run(t, "mkfs.vfat", "-C", image, "8192")
	entries, err := os.ReadDir(tree)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"mcopy", "-s", "-i", image}
	for _, e := range entries {
		argv = append(argv, filepath.Join(tree, e.Name()))
	}
	cmd := exec.Command(argv[0], append(argv[1:], "::/")...)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1", "LC_ALL=C.UTF-8")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcopy: %v\n%s", err, out)
	}
	// mtools 4.0.32 writes characters beyond the BMP as one truncated
	// UTF-16 unit: the tree's "😀" (U+1F600) becomes U+F600.
	src, err := ListDir(tree)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range src {
		src[i].Path = strings.ReplaceAll(e.Path, "😀", "\uf600")
	}
	want, err := Expect("vfat", NewListing(src...))
	if err != nil {
		t.Fatal(err)
	}
	got, err := List(context.Background(), "vfat", image)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range want.Diff(got) {
		t.Error(d)
	}
	for _, e := range got {
		if e.Holds != Data || !strings.Contains(e.String(), "(holds data)") {
			t.Errorf("a FAT entry does not say it holds data only: %s", e)
		}
	}

	empty := filepath.Join(t.TempDir(), "empty.img")
	run(t, "mkfs.vfat", "-C", empty, "1024")
	if got, err := List(context.Background(), "vfat", empty); err != nil || len(got) != 1 {
		t.Errorf("an empty FAT lists %v, %v; want its root alone", got, err)
	}
}

// TestMountIsUndone: the filesystem is unmounted, the loop device
// detached and the mount point removed when the reader panics or its
// context is cancelled.
func TestMountIsUndone(t *testing.T) {
	testenv.Tool(t, "mkfs.erofs")
	testenv.Tool(t, "losetup")
	needRoot(t, "erofs")
	tree := makeTree(t, false, false)
	image := filepath.Join(t.TempDir(), "erofs.img")
	run(t, "mkfs.erofs", "--quiet", image, tree)
	var mountpoint string
	check := func(what string) {
		t.Helper()
		if _, err := os.Stat(mountpoint); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after %s, the mount point %s remains (%v)", what, mountpoint, err)
		}
		out, err := exec.Command("losetup", "-j", image).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) != 0 {
			t.Errorf("after %s, a loop device still holds the image: %s %v", what, out, err)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not come through")
			}
		}()
		withMount(context.Background(), "erofs", "ro", image, func(dir string) error {
			mountpoint = dir
			if mounted, _ := isMountpoint(dir); !mounted {
				t.Errorf("%s is not mounted", dir)
			}
			panic("reader failed")
		})
	}()
	check("a panic")

	ctx, cancel := context.WithCancel(context.Background())
	err := withMount(ctx, "erofs", "ro", image, func(dir string) error {
		mountpoint = dir
		cancel()
		_, err := listDir(ctx, dir, All)
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read returned %v", err)
	}
	check("a cancellation")
}

func TestListErrors(t *testing.T) {
	for _, fs := range []string{"f2fs", "nilfs2"} {
		_, err := List(context.Background(), fs, "/nonexistent")
		if !errors.Is(err, ErrNeedsGuest) || err.Error() != "reading "+fs+" needs a VM: no offline reader exists and the host kernel has no "+fs+" driver" {
			t.Errorf("List(%s) = %v", fs, err)
		}
	}
	if _, err := List(context.Background(), "ntfs", "/nonexistent"); err == nil {
		t.Error("List of an unknown type succeeded")
	}
	if os.Geteuid() != 0 {
		if _, err := List(context.Background(), "btrfs", "/nonexistent"); !errors.Is(err, ErrNeedsRoot) {
			t.Errorf("List(btrfs) as a user = %v, want ErrNeedsRoot", err)
		}
	}
}
