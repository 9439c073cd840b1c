package stage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
)

// The tests' epoch and the two kinds of member times: newer ones are
// clamped to the epoch, older ones kept.
const testEpoch = 1700000000

var (
	newer = time.Unix(1800000000, 0)
	older = time.Unix(1600000000, 500)
)

// capability is a security.capability value (VFS_CAP_REVISION_2,
// effective, CAP_NET_BIND_SERVICE permitted): the xattr setcap writes,
// which only root may set on a real file.
const capability = "\x01\x00\x00\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// member is one tarball entry and what the staged tree must show for it.
type member struct {
	name         string // as written in the tarball
	typ          byte
	mode         int64
	uid, gid     int
	content      string
	link         string // symlink target, or hard link target (a name)
	major, minor int64
	xattrs       map[string]string
	mtime        time.Time // zero: newer
}

// rootfs is the tarball the brief describes, written the way Buildroot
// writes rootfs.tar: "./" names, numeric owners.
func rootfs() []member {
	return []member{
		{name: "./", typ: tar.TypeDir, mode: 0o755},
		{name: "./bin/", typ: tar.TypeDir, mode: 0o755},
		{name: "./bin/busybox", typ: tar.TypeReg, mode: 0o755, content: "busybox\n"},
		{name: "./bin/sh", typ: tar.TypeSymlink, mode: 0o777, link: "busybox"},
		{name: "./bin/su", typ: tar.TypeReg, mode: 0o4755, content: "su\n",
			xattrs: map[string]string{"security.capability": capability, "user.origin": "fixture"}},
		{name: "./dev/", typ: tar.TypeDir, mode: 0o755},
		{name: "./dev/null", typ: tar.TypeChar, mode: 0o666, major: 1, minor: 3},
		{name: "./dev/mmcblk0", typ: tar.TypeBlock, mode: 0o660, gid: 6, major: 179, minor: 0},
		{name: "./dev/initctl", typ: tar.TypeFifo, mode: 0o600},
		{name: "./etc/", typ: tar.TypeDir, mode: 0o755},
		{name: "./etc/secret", typ: tar.TypeReg, mode: 0o640, uid: 1000, gid: 1000, content: "s3cret\n",
			xattrs: map[string]string{"user.comment": "hello"}, mtime: older},
		// Unreadable on disk unless Build sees to it, and an unprivileged
		// mke2fs would fail to read it.
		{name: "./etc/shadow", typ: tar.TypeReg, mode: 0, content: "root:*:19000::::::\n"},
		// An absolute target: GNU tar keeps a placeholder until its end.
		{name: "./etc/mtab", typ: tar.TypeSymlink, mode: 0o777, link: "/proc/self/mounts"},
		{name: "./usr/", typ: tar.TypeDir, mode: 0o755},
		{name: "./usr/bin/", typ: tar.TypeDir, mode: 0o755},
		{name: "./usr/bin/a", typ: tar.TypeReg, mode: 0o755, content: "one inode\n"},
		{name: "./usr/bin/b", typ: tar.TypeLink, link: "./usr/bin/a"},
		{name: "./var/", typ: tar.TypeDir, mode: 0o755},
		{name: "./var/www/", typ: tar.TypeDir, mode: 0o700, uid: 33, gid: 33},
		{name: "./var/www/index.html", typ: tar.TypeReg, mode: 0o644, uid: 33, gid: 33, content: "<html/>\n"},
		// No member for opt/ or opt/implied/: they must come out 0755
		// root:root at the epoch, whatever the host's umask.
		{name: "./opt/implied/file", typ: tar.TypeReg, mode: 0o600, content: "x"},
	}
}

func tarball(t testing.TB, members []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		h := &tar.Header{
			Typeflag: m.typ, Name: m.name, Mode: m.mode, Uid: m.uid, Gid: m.gid,
			Linkname: m.link, Devmajor: m.major, Devminor: m.minor,
			ModTime: m.mtime, Format: tar.FormatPAX, Size: int64(len(m.content)),
		}
		if h.ModTime.IsZero() {
			h.ModTime = newer
		}
		for k, v := range m.xattrs {
			if h.PAXRecords == nil {
				h.PAXRecords = map[string]string{}
			}
			h.PAXRecords["SCHILY.xattr."+k] = v
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeTarball writes members as path, compressed with comp: "", "gzip",
// or the name of a tool that compresses stdin to stdout with -c.
func writeTarball(t testing.TB, path string, members []member, comp string) string {
	t.Helper()
	data := tarball(t, members)
	switch comp {
	case "":
	case "gzip":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		data = buf.Bytes()
	default:
		tool := requireTool(t, comp)
		cmd := exec.Command(tool, "-c")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		data = out
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// requireTool returns the tool's path, looking in the sbin directories too
// (an unprivileged Debian user's PATH lacks them), or skips the test.
func requireTool(t testing.TB, tool string) string {
	t.Helper()
	p, err := findTool(tool)
	if err != nil {
		testenv.Missing(t, tool)
	}
	return p
}

func findTool(tool string) (string, error) {
	if p, err := exec.LookPath(tool); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p, err := exec.LookPath(filepath.Join(dir, tool)); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// build stages in, removing the tree when the test ends.
func build(t testing.TB, in Input) *Tree {
	t.Helper()
	requireTool(t, "fakeroot")
	tree, err := Build(context.Background(), filepath.Join(t.TempDir(), "work"), in)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tree.Remove(); err != nil {
			t.Error(err)
		}
	})
	return tree
}

func entries(t testing.TB, tree *Tree) map[string]Entry {
	t.Helper()
	list, err := tree.Entries(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Entry{}
	for _, e := range list {
		m[e.Path] = e
	}
	return m
}

func ptr(s string) *string { return &s }
