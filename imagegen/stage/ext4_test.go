package stage

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The ext4 flags the filesystems catalogue passes for a reproducible image.
const (
	testUUID = "5f8bd5a2-8d32-4b0c-9d1c-1a2b3c4d5e6f"
	testSeed = "0b7e3c55-6a4f-4c1e-8a9d-2f3e4d5c6b7a"
)

// mke2fs runs `mke2fs -d ROOT` in the session, as filesystems/ext.go's
// Mkfs step does, into a fresh 32MiB image.
func mke2fs(ctx context.Context, tree *Tree, img string) error {
	tool, err := findTool("mke2fs")
	if err != nil {
		return err
	}
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		return err
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		return err
	}
	argv := []string{tool, "-q", "-F", "-t", "ext4", "-b", "4096", "-U", testUUID, "-E", "hash_seed=" + testSeed, "-d", tree.Root, img}
	out, err := tree.Command(ctx, argv, []string{fmt.Sprintf("E2FSPROGS_FAKE_TIME=%d", testEpoch)}).CombinedOutput()
	if err == nil && len(out) > 0 {
		// With -q mke2fs prints only trouble, such as "ignoring entry"
		// for a file whose type it does not know.
		err = fmt.Errorf("it complained")
	}
	if err != nil {
		return fmt.Errorf("mke2fs: %v\n%s", err, out)
	}
	return nil
}

// resetTimes is filesystems/ext.go's Populate step: debugfs sets the four
// timestamps of every path to the epoch, because mke2fs -d copies ctime.
func resetTimes(ctx context.Context, tree *Tree, img string) error {
	tool, err := findTool("debugfs")
	if err != nil {
		return err
	}
	list, err := tree.Entries(ctx)
	if err != nil {
		return err
	}
	var script strings.Builder
	for _, e := range list {
		for _, f := range []string{"atime", "ctime", "mtime", "crtime"} {
			fmt.Fprintf(&script, "set_inode_field /%s %s @%d\n", strings.TrimPrefix(e.Path, "."), f, testEpoch)
		}
	}
	path := img + ".debugfs"
	if err := os.WriteFile(path, []byte(script.String()), 0o644); err != nil {
		return err
	}
	defer os.Remove(path)
	cmd := tree.Command(ctx, []string{tool, "-w", "-f", path, img}, []string{fmt.Sprintf("E2FSPROGS_FAKE_TIME=%d", testEpoch)})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("debugfs: %v\n%s", err, stderr.String())
	}
	// debugfs exits 0 when a command fails; only its banner may be there.
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		if !strings.HasPrefix(line, "debugfs ") {
			return fmt.Errorf("debugfs: %s", stderr.String())
		}
	}
	return nil
}

// debugfs runs one read-only debugfs request on img.
func debugfs(t *testing.T, img, request string) string {
	t.Helper()
	out, err := runDebugfs(img, request)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func runDebugfs(img, request string) (string, error) {
	tool, err := findTool("debugfs")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(tool, "-R", request, img)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("debugfs -R %q: %v\n%s", request, err, stderr.String())
	}
	return stdout.String(), nil
}

// imageEntry is one inode as debugfs shows it.
type imageEntry struct {
	inode, links int
	mode         uint32 // type and permission bits
	uid, gid     int
	mtime        int64
	major, minor int64
	target       string
	xattrs       map[string]string
	xattrOrder   []string // as the inode stores them
}

// listImage walks the image with `ls -p`, whose lines are
// /inode/mode/uid/gid/name/size/, and returns every path but lost+found.
func listImage(t *testing.T, img string) map[string]imageEntry {
	t.Helper()
	out := map[string]imageEntry{}
	var walk func(dir string)
	walk = func(dir string) {
		for _, line := range strings.Split(debugfs(t, img, "ls -p "+dir), "\n") {
			f := strings.Split(line, "/")
			if len(f) < 7 || f[5] == "." || f[5] == ".." || (dir == "/" && f[5] == "lost+found") {
				continue
			}
			ino, _ := strconv.Atoi(f[1])
			mode, _ := strconv.ParseUint(f[2], 8, 32)
			uid, _ := strconv.Atoi(f[3])
			gid, _ := strconv.Atoi(f[4])
			p := strings.TrimPrefix(dir+"/"+f[5], "//")
			out[strings.TrimPrefix(p, "/")] = imageEntry{inode: ino, mode: uint32(mode), uid: uid, gid: gid}
			if mode&unix.S_IFMT == unix.S_IFDIR {
				walk(p)
			}
		}
	}
	walk("/")
	return out
}

var (
	statMode   = regexp.MustCompile(`Mode:\s+(\d+)`)
	statLinks  = regexp.MustCompile(`Links: (\d+)`)
	statMtime  = regexp.MustCompile(`mtime: 0x([0-9a-f]+)`)
	statDevice = regexp.MustCompile(`Device major/minor number: (\d+):(\d+)`)
	statLink   = regexp.MustCompile(`Fast link dest: "(.*)"`)
	statXattr  = regexp.MustCompile(`^  (\S+) \(\d+\)`)
)

// statImage reads one path's inode: `stat` for the fields, `ea_get` for
// the exact bytes of each xattr.
func statImage(t *testing.T, img, path string) imageEntry {
	t.Helper()
	out := debugfs(t, img, "stat /"+path)
	var e imageEntry
	if m := statMode.FindStringSubmatch(out); m != nil {
		mode, _ := strconv.ParseUint(m[1], 8, 32)
		e.mode = uint32(mode)
	}
	if m := statLinks.FindStringSubmatch(out); m != nil {
		e.links, _ = strconv.Atoi(m[1])
	}
	if m := statMtime.FindStringSubmatch(out); m != nil {
		e.mtime, _ = strconv.ParseInt(m[1], 16, 64)
	}
	if m := statDevice.FindStringSubmatch(out); m != nil {
		e.major, _ = strconv.ParseInt(m[1], 10, 64)
		e.minor, _ = strconv.ParseInt(m[2], 10, 64)
	}
	if m := statLink.FindStringSubmatch(out); m != nil {
		e.target = m[1]
	}
	e.xattrs = map[string]string{}
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch m := statXattr.FindStringSubmatch(line); {
		case line == "Extended attributes:":
			in = true
		case in && m != nil:
			dump := filepath.Join(t.TempDir(), "value")
			debugfs(t, img, fmt.Sprintf("ea_get -f %s /%s %s", dump, path, m[1]))
			v, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			e.xattrs[m[1]] = string(v)
			e.xattrOrder = append(e.xattrOrder, m[1])
		default:
			in = false
		}
	}
	return e
}

// checkImage compares every inode of the image with the tree as the
// session shows it, then every member in detail.
func checkImage(t *testing.T, tree *Tree, img string, members []member) {
	t.Helper()
	staged := entries(t, tree)
	got := listImage(t, img)
	for p, e := range staged {
		if p == "." {
			continue
		}
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("/%s: staged, missing from the image", p)
		case g.mode != e.Mode || g.uid != e.UID || g.gid != e.GID:
			t.Errorf("/%s: image has %o %d:%d, the tree %o %d:%d", p, g.mode, g.uid, g.gid, e.Mode, e.UID, e.GID)
		}
	}
	for p := range got {
		if _, ok := staged[p]; !ok {
			t.Errorf("/%s: in the image, not in the tree", p)
		}
	}
	byPath := map[string]member{}
	for _, m := range members {
		p := m.path()
		if p == "." {
			continue
		}
		st := statImage(t, img, p)
		if m.typ == tar.TypeLink {
			target := member{name: m.link}.path()
			if got[p].inode != got[target].inode || st.links != 2 {
				t.Errorf("/%s: inode %d with %d links, its hard link /%s has inode %d", p, got[p].inode, st.links, target, got[target].inode)
			}
			m = byPath[target]
		}
		byPath[p] = m
		if want := typeBits(m.typ) | uint32(m.mode); got[p].mode != want || st.mode != uint32(m.mode)&0o7777 {
			t.Errorf("/%s: mode %o (stat %o), want %o", p, got[p].mode, st.mode, want)
		}
		if got[p].uid != m.uid || got[p].gid != m.gid {
			t.Errorf("/%s: owner %d:%d, want %d:%d", p, got[p].uid, got[p].gid, m.uid, m.gid)
		}
		if (m.typ == tar.TypeChar || m.typ == tar.TypeBlock) && (st.major != m.major || st.minor != m.minor) {
			t.Errorf("/%s: device %d,%d, want %d,%d", p, st.major, st.minor, m.major, m.minor)
		}
		if m.typ == tar.TypeSymlink && st.target != m.link {
			t.Errorf("/%s: symlink to %q, want %q", p, st.target, m.link)
		}
		if st.mtime != clamped(m.mtime) {
			t.Errorf("/%s: mtime %d, want %d", p, st.mtime, clamped(m.mtime))
		}
		want := m.xattrs
		if want == nil {
			want = map[string]string{}
		}
		if fmt.Sprint(st.xattrs) != fmt.Sprint(want) {
			t.Errorf("/%s: xattrs %q, want %q", p, st.xattrs, want)
		}
		// Sorted, whatever the host: the image must not depend on it.
		if !sort.StringsAreSorted(st.xattrOrder) {
			t.Errorf("/%s: xattrs stored in the order %q, want them sorted", p, st.xattrOrder)
		}
	}
}

// TestExt4 stages the brief's tarball and proves that mke2fs, run through
// Command, sees what the tarball says: every inode's type, mode and owner,
// device numbers, symlink targets, hard links, xattrs and clamped mtimes.
func TestExt4(t *testing.T) {
	requireTool(t, "mke2fs")
	requireTool(t, "debugfs")
	requireTool(t, "setfattr")
	members := rootfs()
	tree := build(t, Input{Tar: writeTarball(t, filepath.Join(t.TempDir(), "rootfs.tar"), members, ""), Epoch: testEpoch})
	img := filepath.Join(t.TempDir(), "ext4.img")
	if err := mke2fs(context.Background(), tree, img); err != nil {
		t.Fatal(err)
	}
	checkImage(t, tree, img, members)
	if testing.Verbose() {
		t.Logf("debugfs ls -l /:\n%s", debugfs(t, img, "ls -l /"))
	}
}

// TestExt4Dir: a directory's own xattrs, read from disk, reach the image.
func TestExt4Dir(t *testing.T) {
	requireTool(t, "mke2fs")
	requireTool(t, "debugfs")
	requireTool(t, "setfattr")
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(filepath.Join(src, "f"), "user.origin", []byte("dir"), 0); err != nil {
		t.Skipf("this filesystem refuses user xattrs: %v", err)
	}
	for _, p := range []string{"f", "."} {
		os.Chtimes(filepath.Join(src, p), newer, newer)
	}
	tree := build(t, Input{Dir: src, Epoch: testEpoch})
	img := filepath.Join(t.TempDir(), "ext4.img")
	if err := mke2fs(context.Background(), tree, img); err != nil {
		t.Fatal(err)
	}
	checkImage(t, tree, img, []member{
		{name: "f", typ: tar.TypeReg, mode: 0o644, content: "f", xattrs: map[string]string{"user.origin": "dir"}},
	})
}

// TestReproducible stages the same tarball twice and builds ext4 images
// the way filesystems/ext.go does. Straight from mke2fs they differ: mke2fs
// -d copies each file's ctime, which is the time of staging and which
// nothing can set (utimensat sets it to now, and fakeroot fakes owners,
// not times). After the debugfs step they are bit-identical. So staging
// cannot make that step unnecessary.
func TestReproducible(t *testing.T) {
	requireTool(t, "mke2fs")
	requireTool(t, "debugfs")
	requireTool(t, "setfattr")
	ctx := context.Background()
	path := writeTarball(t, filepath.Join(t.TempDir(), "rootfs.tar"), rootfs(), "")
	dir := t.TempDir()
	var raw, final [2][]byte
	for i := range raw {
		if i == 1 {
			// The second staging's ctimes fall in a later second.
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
		}
		tree := build(t, Input{Tar: path, Epoch: testEpoch})
		img := filepath.Join(dir, fmt.Sprintf("ext4-%d.img", i))
		if err := mke2fs(ctx, tree, img); err != nil {
			t.Fatal(err)
		}
		raw[i] = readFile(t, img)
		if err := resetTimes(ctx, tree, img); err != nil {
			t.Fatal(err)
		}
		final[i] = readFile(t, img)
	}
	if bytes.Equal(raw[0], raw[1]) {
		t.Error("mke2fs -d made identical images from two stagings a second apart: it no longer copies ctime, " +
			"and the debugfs step in filesystems/ext.go may be unnecessary")
	} else {
		t.Logf("before the debugfs step the images differ in %d bytes (ctimes)", diffBytes(raw[0], raw[1]))
	}
	if !bytes.Equal(final[0], final[1]) {
		t.Errorf("after the debugfs step the images still differ in %d bytes", diffBytes(final[0], final[1]))
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func diffBytes(a, b []byte) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
