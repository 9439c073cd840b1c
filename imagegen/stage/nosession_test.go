package stage

import (
	"archive/tar"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestNoSession stages the same inputs with and without a session and
// compares what Entries reports, entry by entry, and what is on disk: a
// filesystem without owners (FAT) must get the same names, file data and
// mtimes, and a caller the same list to refuse symlinks and devices from.
func TestNoSession(t *testing.T) {
	requireTool(t, "setfattr")
	src := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(src, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range []string{"boot/overlays", "empty"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "boot/config.txt"), []byte("arm_64bit=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "boot/config.txt"), filepath.Join(dir, "boot/config.bak")); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, "boot/config.txt"), older, older)
	tarPath := writeTarball(t, filepath.Join(t.TempDir(), "rootfs.tar"), rootfs(), "")
	layer := writeTarball(t, filepath.Join(t.TempDir(), "layer.tar"), []member{
		// Replaces a device node with a file, a file with a symlink.
		{name: "dev/null", typ: tar.TypeReg, mode: 0o644, content: "not a device\n"},
		{name: "usr/bin/a", typ: tar.TypeSymlink, mode: 0o777, link: "b"},
	}, "")
	files := []File{
		{Path: "/etc/hostname", Content: ptr("board\n"), Mode: 0o644},
		{Path: "/usr/bin/b", Content: ptr("replaced\n"), Mode: 0o755, UID: 5, GID: 6},
		{Path: "usr/local/sbin/tool", Source: src, Mode: 0o4750, GID: 7},
		{Path: "/etc/empty", Content: ptr(""), Mode: 0},
	}
	for _, c := range []struct {
		name string
		in   Input
	}{
		{"tarball", Input{Tar: tarPath, Layers: []string{layer}, Files: files}},
		{"dir", Input{Dir: dir, Files: files[:1]}},
		{"files only", Input{Files: files}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.in.Epoch = testEpoch
			want := entries(t, build(t, c.in))
			c.in.NoSession = true
			tree := build(t, c.in)
			if tree.State != "" {
				t.Errorf("State = %q without a session", tree.State)
			}
			got := entries(t, tree)
			compareEntries(t, want, got)
			checkDisk(t, tree, got)
		})
	}
}

// compareEntries checks got against want (the session's), hard links by
// which entries share an inode rather than by the inode numbers.
func compareEntries(t *testing.T, want, got map[string]Entry) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		if !ok {
			t.Errorf("%s: missing without a session", p)
			continue
		}
		if g.Mode != w.Mode || g.UID != w.UID || g.GID != w.GID || g.Major != w.Major || g.Minor != w.Minor ||
			g.Target != w.Target || g.MTime != w.MTime || (w.Mode&unix.S_IFMT == unix.S_IFREG && g.Size != w.Size) {
			t.Errorf("%s: without a session %+v, with one %+v", p, g, w)
		}
		for q, w2 := range want {
			if (w2.Inode == w.Inode) != (got[q].Inode == g.Inode) {
				t.Errorf("%s and %s: same inode %t with a session, %t without", p, q, w2.Inode == w.Inode, got[q].Inode == g.Inode)
			}
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: only without a session", p)
		}
	}
}

// checkDisk: on disk only directories and regular files, with their data,
// readable, without setuid bits, and their mtimes, which FAT keeps.
func checkDisk(t *testing.T, tree *Tree, list map[string]Entry) {
	t.Helper()
	for p, e := range list {
		var st unix.Stat_t
		err := unix.Lstat(filepath.Join(tree.Root, p), &st)
		switch e.Mode & unix.S_IFMT {
		case unix.S_IFDIR, unix.S_IFREG:
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if st.Mode&unix.S_IFMT != e.Mode&unix.S_IFMT || st.Mode&0o7000 != 0 || st.Mode&0o600 != 0o600 {
				t.Errorf("%s: mode %o on disk for %o", p, st.Mode, e.Mode)
			}
			if st.Mtim.Sec != e.MTime {
				t.Errorf("%s: mtime %d on disk, want %d", p, st.Mtim.Sec, e.MTime)
			}
			if e.Mode&unix.S_IFMT == unix.S_IFREG && st.Size != e.Size {
				t.Errorf("%s: %d bytes on disk, want %d", p, st.Size, e.Size)
			}
		default:
			if err == nil {
				t.Errorf("%s: a %o entry exists on disk, want nothing", p, e.Mode)
			}
		}
	}
	out, err := tree.Command(context.Background(), []string{"id", "-u"}, nil).Output()
	if want := strconv.Itoa(os.Getuid()); err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("id -u without a session: %q %v, want %s", out, err, want)
	}
}
