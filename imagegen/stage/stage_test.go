package stage

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func (m member) path() string {
	p, err := cleanName(m.name)
	if err != nil {
		panic(err)
	}
	return p
}

func typeBits(typ byte) uint32 {
	return map[byte]uint32{
		tar.TypeDir: unix.S_IFDIR, tar.TypeReg: unix.S_IFREG, tar.TypeSymlink: unix.S_IFLNK,
		tar.TypeChar: unix.S_IFCHR, tar.TypeBlock: unix.S_IFBLK, tar.TypeFifo: unix.S_IFIFO,
	}[typ]
}

func clamped(t time.Time) int64 {
	if t.IsZero() || t.Unix() > testEpoch {
		return testEpoch
	}
	return t.Unix()
}

// checkStaged compares the tree, as the session shows it, with members;
// implied lists the directories Build had to add.
func checkStaged(t *testing.T, tree *Tree, members []member, implied ...string) {
	t.Helper()
	got := entries(t, tree)
	seen := map[string]bool{}
	byPath := map[string]member{}
	for _, m := range members {
		p := m.path()
		seen[p] = true
		e, ok := got[p]
		if !ok {
			t.Errorf("%s: missing from the tree", p)
			continue
		}
		if m.typ == tar.TypeLink {
			target := got[member{name: m.link}.path()]
			if e.Inode != target.Inode || e.Links != 2 {
				t.Errorf("%s: inode %d (%d links), its hard link target has %d", p, e.Inode, e.Links, target.Inode)
			}
			m = byPath[member{name: m.link}.path()]
		}
		byPath[p] = m
		if want := typeBits(m.typ) | uint32(m.mode); e.Mode != want {
			t.Errorf("%s: mode %o, want %o", p, e.Mode, want)
		}
		if e.UID != m.uid || e.GID != m.gid {
			t.Errorf("%s: owner %d:%d, want %d:%d", p, e.UID, e.GID, m.uid, m.gid)
		}
		if m.typ == tar.TypeChar || m.typ == tar.TypeBlock {
			if int64(e.Major) != m.major || int64(e.Minor) != m.minor {
				t.Errorf("%s: device %d,%d, want %d,%d", p, e.Major, e.Minor, m.major, m.minor)
			}
		}
		if m.typ == tar.TypeSymlink && e.Target != m.link {
			t.Errorf("%s: symlink to %q, want %q", p, e.Target, m.link)
		}
		if m.typ == tar.TypeReg {
			data, err := os.ReadFile(filepath.Join(tree.Root, p))
			if err != nil || string(data) != m.content {
				t.Errorf("%s: content %q (%v), want %q", p, data, err, m.content)
			}
		}
		if e.MTime != clamped(m.mtime) {
			t.Errorf("%s: mtime %d, want %d", p, e.MTime, clamped(m.mtime))
		}
	}
	for _, p := range implied {
		seen[p] = true
		if e := got[p]; e.Mode != unix.S_IFDIR|0o755 || e.UID != 0 || e.GID != 0 || e.MTime != testEpoch {
			t.Errorf("%s: implied directory is %o %d:%d at %d, want 40755 0:0 at the epoch", p, e.Mode, e.UID, e.GID, e.MTime)
		}
	}
	for p := range got {
		if !seen[p] {
			t.Errorf("%s: in the tree, not in the input", p)
		}
	}
}

// TestTarball stages the brief's tarball, plain and compressed, and checks
// every entry as the session shows it to mkfs tools; TestExt4 checks the
// same through a real image.
func TestTarball(t *testing.T) {
	for _, comp := range []string{"", "gzip", "bzip2", "xz", "zstd"} {
		name := comp
		if name == "" {
			name = "plain"
		}
		t.Run(name, func(t *testing.T) {
			requireTool(t, "setfattr")
			path := writeTarball(t, filepath.Join(t.TempDir(), "rootfs.tar"), rootfs(), comp)
			tree := build(t, Input{Tar: path, Epoch: testEpoch})
			// atime first: reading a directory (checkStaged does) moves it.
			for _, m := range rootfs() {
				var st unix.Stat_t
				if err := unix.Lstat(filepath.Join(tree.Root, m.path()), &st); err != nil || st.Atim.Sec != st.Mtim.Sec || st.Atim.Sec > testEpoch {
					t.Errorf("%s: atime %d, mtime %d (%v), want both clamped", m.path(), st.Atim.Sec, st.Mtim.Sec, err)
				}
			}
			checkStaged(t, tree, rootfs(), "opt", "opt/implied")

			// On disk nothing is privileged: the device node is an
			// empty file and every file belongs to this process's user.
			fi, err := os.Lstat(filepath.Join(tree.Root, "dev/null"))
			if err != nil || !fi.Mode().IsRegular() {
				t.Errorf("dev/null on disk: %v %v, want a regular file", fi.Mode(), err)
			}
			fi, err = os.Lstat(filepath.Join(tree.Root, "etc/secret"))
			if err != nil || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
				t.Errorf("etc/secret on disk is owned by %v (%v), want uid %d", fi.Sys().(*syscall.Stat_t).Uid, err, os.Getuid())
			}
		})
	}
}

func TestFiles(t *testing.T) {
	requireTool(t, "setfattr")
	victim := t.TempDir()
	members := append(rootfs(),
		// A symlink out of the tree at a path a file replaces: the file
		// must replace the link, not write through it.
		member{name: "./etc/resolv.conf", typ: tar.TypeSymlink, mode: 0o777, link: filepath.Join(victim, "resolv.conf")})
	path := writeTarball(t, filepath.Join(t.TempDir(), "rootfs.tar"), members, "")
	src := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Path: "/etc/hostname", Content: ptr("board\n"), Mode: 0o644},
		{Path: "/etc/resolv.conf", Content: ptr("nameserver 10.0.0.1\n"), Mode: 0o644},
		{Path: "/usr/bin/a", Content: ptr("replaced\n"), Mode: 0o755, UID: 5, GID: 6},
		{Path: "usr/local/sbin/tool", Source: src, Mode: 0o4750, GID: 7},
		{Path: "/etc/empty", Content: ptr(""), Mode: 0},
	}
	tree := build(t, Input{Tar: path, Epoch: testEpoch, Files: files})
	got := entries(t, tree)
	want := []struct {
		path, content string
		mode          uint32
		uid, gid      int
	}{
		{"etc/hostname", "board\n", 0o100644, 0, 0},
		{"etc/resolv.conf", "nameserver 10.0.0.1\n", 0o100644, 0, 0},
		{"usr/bin/a", "replaced\n", 0o100755, 5, 6},
		{"usr/bin/b", "one inode\n", 0o100755, 0, 0},
		{"usr/local/sbin/tool", "#!/bin/sh\n", 0o104750, 0, 7},
		{"etc/empty", "", 0o100000, 0, 0},
	}
	for _, w := range want {
		e := got[w.path]
		data, err := os.ReadFile(filepath.Join(tree.Root, w.path))
		if err != nil || string(data) != w.content || e.Mode != w.mode || e.UID != w.uid || e.GID != w.gid || e.MTime != testEpoch {
			t.Errorf("%s: %q %o %d:%d at %d (%v), want %q %o %d:%d at the epoch",
				w.path, data, e.Mode, e.UID, e.GID, e.MTime, err, w.content, w.mode, w.uid, w.gid)
		}
	}
	if got["usr/bin/a"].Inode == got["usr/bin/b"].Inode {
		t.Error("replacing usr/bin/a wrote into its hard link usr/bin/b")
	}
	for _, dir := range []string{"usr/local", "usr/local/sbin"} {
		if e := got[dir]; e.Mode != 0o40755 || e.UID != 0 || e.MTime != testEpoch {
			t.Errorf("%s: %o %d:%d at %d, want 40755 0:0 at the epoch", dir, e.Mode, e.UID, e.GID, e.MTime)
		}
	}
	if e := got["usr/bin"]; e.MTime != testEpoch {
		t.Errorf("usr/bin: mtime %d after a file was replaced in it, want the epoch", e.MTime)
	}
	if names, _ := os.ReadDir(victim); len(names) != 0 {
		t.Errorf("a file was written through the symlink into %s", victim)
	}
}

// TestDir copies a directory as this user made it: modes, links, FIFOs
// and xattrs kept, owners 0:0.
func TestDir(t *testing.T) {
	requireTool(t, "setfattr")
	src := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "etc/private"), 0o755))
	must(os.Chmod(filepath.Join(src, "etc/private"), 0o700))
	must(os.WriteFile(filepath.Join(src, "etc/passwd"), []byte("root:x:0:0::/root:/bin/sh\n"), 0o644))
	must(os.WriteFile(filepath.Join(src, "etc/su"), []byte("su"), 0o644))
	must(unix.Chmod(filepath.Join(src, "etc/su"), 0o4755)) // os.Chmod would need fs.ModeSetuid
	must(os.Link(filepath.Join(src, "etc/passwd"), filepath.Join(src, "etc/passwd-")))
	must(os.Symlink("passwd", filepath.Join(src, "etc/link")))
	must(unix.Mkfifo(filepath.Join(src, "etc/fifo"), 0o600))
	xattrs := unix.Setxattr(filepath.Join(src, "etc/passwd"), "user.origin", []byte("dir"), 0) == nil
	for _, p := range []string{"etc/private", "etc/passwd", "etc/su", "etc/fifo", "etc", "."} {
		must(os.Chtimes(filepath.Join(src, p), newer, newer))
	}
	must(os.Chtimes(filepath.Join(src, "etc/passwd"), older, older))

	tree := build(t, Input{Dir: src, Epoch: testEpoch})
	checkStaged(t, tree, []member{
		{name: ".", typ: tar.TypeDir, mode: 0o755},
		{name: "etc", typ: tar.TypeDir, mode: 0o755},
		{name: "etc/private", typ: tar.TypeDir, mode: 0o700},
		{name: "etc/passwd", typ: tar.TypeReg, mode: 0o644, content: "root:x:0:0::/root:/bin/sh\n", mtime: older},
		{name: "etc/passwd-", typ: tar.TypeLink, link: "etc/passwd"},
		{name: "etc/su", typ: tar.TypeReg, mode: 0o4755, content: "su"},
		{name: "etc/link", typ: tar.TypeSymlink, mode: 0o777, link: "passwd"},
		{name: "etc/fifo", typ: tar.TypeFifo, mode: 0o600},
	})
	if !xattrs {
		t.Log("this filesystem refuses user xattrs; TestExt4Dir is skipped for them")
	}
}

// TestEscapes feeds tarballs and files that try to leave the tree.
func TestEscapes(t *testing.T) {
	victim := t.TempDir()
	reg := func(name string) member { return member{name: name, typ: tar.TypeReg, mode: 0o644, content: "evil"} }
	link := func(name, target string) member {
		return member{name: name, typ: tar.TypeSymlink, mode: 0o777, link: target}
	}
	for _, c := range []struct {
		name    string
		members []member
		files   []File
		refusal string
	}{
		{"dotdot", []member{reg("ok"), reg("../" + filepath.Base(victim) + "/evil")}, nil, `".."`},
		{"dotdot inside", []member{reg("a/../../evil")}, nil, `".."`},
		{"through absolute symlink", []member{link("etc", victim), reg("etc/evil")}, nil, "is a symlink"},
		{"through relative symlink", []member{link("etc", "../../../../../../../.."+victim), reg("etc/evil")}, nil, "is a symlink"},
		{"hard link out", []member{{name: "h", typ: tar.TypeLink, link: "../" + filepath.Base(victim) + "/x"}}, nil, `".."`},
		{"hard link to nothing", []member{{name: "h", typ: tar.TypeLink, link: "etc/passwd"}}, nil, "no earlier member"},
		{"file through symlink", []member{link("etc", victim)},
			[]File{{Path: "/etc/evil", Content: ptr("evil"), Mode: 0o644}}, "is a symlink"},
		{"file through nested symlink", []member{{name: "usr/", typ: tar.TypeDir, mode: 0o755}, link("usr/lib", "../../"+victim)},
			[]File{{Path: "/usr/lib/x/evil", Content: ptr("evil"), Mode: 0o644}}, "is a symlink"},
		{"file over a directory", []member{{name: "etc/", typ: tar.TypeDir, mode: 0o755}},
			[]File{{Path: "/etc", Content: ptr("x"), Mode: 0o644}}, "has a directory"},
		{"file dotdot", nil, []File{{Path: "/../evil", Content: ptr("evil"), Mode: 0o644}}, `".."`},
		{"file beneath a file", []member{reg("etc")}, []File{{Path: "/etc/x", Content: ptr("x"), Mode: 0o644}}, "is not a directory"},
		{"acl", []member{{name: "f", typ: tar.TypeReg, mode: 0o644, xattrs: map[string]string{"system.posix_acl_access": "x"}}}, nil, "POSIX ACL"},
	} {
		for _, noSession := range []bool{false, true} {
			name := c.name
			if noSession {
				name += "/no session"
			}
			t.Run(name, func(t *testing.T) {
				if !noSession {
					requireTool(t, "fakeroot")
				}
				in := Input{Epoch: testEpoch, Files: c.files, NoSession: noSession}
				if c.members != nil {
					in.Tar = writeTarball(t, filepath.Join(t.TempDir(), "evil.tar"), c.members, "")
				}
				work := filepath.Join(t.TempDir(), "work")
				tree, err := Build(context.Background(), work, in)
				if err == nil {
					tree.Remove()
					t.Fatal("Build accepted it")
				}
				if !strings.Contains(err.Error(), c.refusal) {
					t.Errorf("error %q does not say %q", err, c.refusal)
				}
				if _, serr := os.Stat(work); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("the failed Build left %s behind", work)
				}
				if names, _ := os.ReadDir(victim); len(names) != 0 {
					t.Fatalf("something was written into %s", victim)
				}
			})
		}
	}
}

// TestAbsoluteNames: a tarball made with absolute names is taken relative
// to the root, as GNU tar takes it, not refused.
func TestAbsoluteNames(t *testing.T) {
	members := []member{{name: "/etc/hostname", typ: tar.TypeReg, mode: 0o644, content: "abs\n"}}
	tree := build(t, Input{Tar: writeTarball(t, filepath.Join(t.TempDir(), "abs.tar"), members, ""), Epoch: testEpoch})
	checkStaged(t, tree, members, ".", "etc")
}

// TestGNUTarGuards shows the second line of defence: GNU tar, given the
// hostile tarballs directly (Build never lets them through), refuses ".."
// members and does not extract through a symlink it has just created.
func TestGNUTarGuards(t *testing.T) {
	victim := t.TempDir()
	tree := build(t, Input{Epoch: testEpoch})
	for _, c := range []struct {
		name, says string
		members    []member
	}{
		{"dotdot", "Member name contains '..'",
			[]member{{name: "../../../../../../../.." + victim + "/evil", typ: tar.TypeReg, mode: 0o644, content: "x"}}},
		{"symlink", "Not a directory", []member{
			{name: "etc", typ: tar.TypeSymlink, link: victim},
			{name: "etc/evil", typ: tar.TypeReg, mode: 0o644, content: "x"},
		}},
		{"relative symlink", "Not a directory", []member{
			{name: "etc", typ: tar.TypeSymlink, link: "../../../../../../../.." + victim},
			{name: "etc/evil", typ: tar.TypeReg, mode: 0o644, content: "x"},
		}},
	} {
		path := writeTarball(t, filepath.Join(t.TempDir(), "evil.tar"), c.members, "")
		argv := []string{"tar", "--extract", "--file=" + path, "--directory=" + tree.Root, "--numeric-owner", "--same-owner", "--same-permissions"}
		out, err := tree.Command(context.Background(), argv, nil).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.says) {
			t.Errorf("%s: GNU tar: %v, want a failure saying %q:\n%s", c.name, err, c.says, out)
		}
		if names, _ := os.ReadDir(victim); len(names) != 0 {
			t.Fatalf("%s: GNU tar wrote into %s: %s", c.name, victim, out)
		}
	}
}

func TestInvalidInput(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src")
	os.WriteFile(src, nil, 0o644)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in      Input
		refusal string
	}{
		{Input{Dir: "d", Tar: "t"}, "not both"},
		{Input{Tar: filepath.Join(t.TempDir(), "missing.tar")}, "no such file"},
		{Input{Dir: src}, "not a directory"},
		{Input{Epoch: -1}, "before 1970"},
		{Input{Files: []File{{Path: "/x", Content: ptr(""), Mode: 0o10644}}}, "beyond 07777"},
		{Input{Files: []File{{Path: "/x", Content: ptr(""), UID: -1}}}, "out of range"},
		{Input{Files: []File{{Path: "/x", Content: ptr(""), GID: 1<<32 - 1}}}, "out of range"},
		{Input{Files: []File{{Path: "/x"}}}, "exactly one"},
		{Input{Files: []File{{Path: "/x", Content: ptr(""), Source: src}}}, "exactly one"},
		{Input{Files: []File{{Path: "/x", Source: fifo}}}, "neither a regular file nor a directory"},
		{Input{Files: []File{{Path: "/", Content: ptr("")}}}, "root directory"},
		{Input{Files: []File{{Path: "/x", Content: ptr("")}, {Path: "x", Content: ptr("")}}}, "twice"},
	} {
		work := filepath.Join(t.TempDir(), "work")
		_, err := Build(context.Background(), work, c.in)
		if err == nil || !strings.Contains(err.Error(), c.refusal) {
			t.Errorf("%+v: error %v, want one saying %q", c.in, err, c.refusal)
		}
		if _, serr := os.Stat(work); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%+v: a refused input created %s", c.in, work)
		}
	}
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "x"), nil, 0o644)
	if _, err := Build(context.Background(), busy, Input{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a non-empty workdir: %v", err)
	}
}

// TestCommand: the session reaches C programs and refuses the programs it
// cannot reach; after Close it is gone and State holds the owners.
func TestCommand(t *testing.T) {
	requireTool(t, "setfattr")
	members := rootfs()
	tree := build(t, Input{Tar: writeTarball(t, filepath.Join(t.TempDir(), "r.tar"), members, ""), Epoch: testEpoch})
	ctx := context.Background()
	out, err := tree.Command(ctx, []string{"id", "-u"}, nil).Output()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("id -u in the session: %q %v, want 0", out, err)
	}
	out, err = tree.Command(ctx, []string{"sh", "-c", `echo "$FSB_X"`}, []string{"FSB_X=passed"}).Output()
	if err != nil || strings.TrimSpace(string(out)) != "passed" {
		t.Errorf("env did not reach the command: %q %v", out, err)
	}
	self, _ := os.Executable()
	if err := tree.Command(ctx, []string{self}, nil).Run(); err == nil || !strings.Contains(err.Error(), "Go program") {
		t.Errorf("a Go program: %v, want a refusal", err)
	}
	if _, err := os.Stat("/sbin/ldconfig"); err == nil {
		if err := tree.Command(ctx, []string{"/sbin/ldconfig"}, nil).Run(); err == nil || !strings.Contains(err.Error(), "statically linked") {
			t.Errorf("ldconfig, statically linked on Debian: %v, want a refusal", err)
		}
	}
	if err := tree.Command(ctx, nil, nil).Run(); err == nil {
		t.Error("an empty command ran")
	}
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tree.Command(ctx, []string{"true"}, nil).Run(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after Close: %v, want a refusal", err)
	}
	state, err := os.ReadFile(tree.State)
	if err != nil || !strings.Contains(string(state), "uid=1000,gid=1000") {
		t.Errorf("state file: %v\n%s", err, state)
	}
	if err := tree.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(tree.Root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Remove left %s", filepath.Dir(tree.Root))
	}
}

// An archive that is no tarball is named for what it is, not reported as
// an unexpected end of file.
func TestNotATarball(t *testing.T) {
	for what, content := range map[string]string{
		"a zip archive": "PK\x03\x04\x14\x00\x00\x00rest", "a 7-Zip archive": "7z\xbc\xaf\x27\x1c\x00\x04",
		"an ar archive": "!<arch>\ndebian-binary", "a squashfs image": "hsqs\x00\x00\x00\x00",
	} {
		p := filepath.Join(t.TempDir(), "rootfs.tar")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Build(context.Background(), filepath.Join(t.TempDir(), "w"), Input{Tar: p, Epoch: testEpoch, NoSession: true})
		if err == nil || !strings.Contains(err.Error(), what+", not a tarball") {
			t.Errorf("%s: %v", what, err)
		}
	}
}
