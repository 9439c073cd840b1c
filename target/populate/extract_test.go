package populate

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
	"golang.org/x/sys/unix"
)

func TestExtractKeepsMetadata(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root to chown and mknod")
	}
	mtime := time.Unix(315532800, 0)
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	add := func(h *tar.Header, body string) {
		h.ModTime, h.Format = mtime, tar.FormatPAX
		h.Size = int64(len(body))
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "./", Mode: 0o755}, "")
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "./ro/", Mode: 0o555, Uid: 7, Gid: 8}, "")
	add(&tar.Header{Typeflag: tar.TypeReg, Name: "./ro/su", Mode: 0o4755, Uid: 0, Gid: 0,
		PAXRecords: map[string]string{"SCHILY.xattr.user.fsbench": "yes"}}, "setuid")
	add(&tar.Header{Typeflag: tar.TypeReg, Name: "./ro/file", Mode: 0o640, Uid: 1000, Gid: 100}, "data")
	add(&tar.Header{Typeflag: tar.TypeLink, Name: "./hard", Linkname: "./ro/file"}, "")
	add(&tar.Header{Typeflag: tar.TypeSymlink, Name: "./link", Linkname: "/etc/passwd", Uid: 5, Gid: 5}, "")
	add(&tar.Header{Typeflag: tar.TypeChar, Name: "./null", Mode: 0o666, Devmajor: 1, Devminor: 3}, "")
	add(&tar.Header{Typeflag: tar.TypeFifo, Name: "./fifo", Mode: 0o600}, "")
	tw.Close()

	dir := t.TempDir()
	needUserXattrs(t, dir)
	st, err := Extract(&b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 8 || st.Bytes != 10 {
		t.Errorf("stats %+v, want 8 entries and 10 bytes", st)
	}
	check := func(name string, mode, uid, gid uint32) *unix.Stat_t {
		t.Helper()
		var s unix.Stat_t
		if err := unix.Lstat(filepath.Join(dir, name), &s); err != nil {
			t.Fatal(err)
		}
		if s.Mode&0o7777 != mode || s.Uid != uid || s.Gid != gid {
			t.Errorf("%s: mode %o %d:%d, want %o %d:%d", name, s.Mode&0o7777, s.Uid, s.Gid, mode, uid, gid)
		}
		if s.Mtim.Sec != mtime.Unix() {
			t.Errorf("%s: mtime %d", name, s.Mtim.Sec)
		}
		return &s
	}
	check("ro", 0o555, 7, 8)
	check("ro/su", 0o4755, 0, 0)
	f := check("ro/file", 0o640, 1000, 100)
	if h := check("hard", 0o640, 1000, 100); h.Ino != f.Ino || h.Nlink != 2 {
		t.Errorf("hard link: inode %d vs %d, %d links", h.Ino, f.Ino, h.Nlink)
	}
	check("link", 0o777, 5, 5)
	if n := check("null", 0o666, 0, 0); n.Mode&unix.S_IFMT != unix.S_IFCHR || n.Rdev != unix.Mkdev(1, 3) {
		t.Errorf("null: mode %o rdev %x", n.Mode, n.Rdev)
	}
	if n := check("fifo", 0o600, 0, 0); n.Mode&unix.S_IFMT != unix.S_IFIFO {
		t.Errorf("fifo: mode %o", n.Mode)
	}
	if target, _ := os.Readlink(filepath.Join(dir, "link")); target != "/etc/passwd" {
		t.Errorf("symlink target %q", target)
	}
	buf := make([]byte, 16)
	if n, err := unix.Lgetxattr(filepath.Join(dir, "ro/su"), "user.fsbench", buf); err != nil || string(buf[:n]) != "yes" {
		t.Errorf("xattr user.fsbench of ro/su: %q, %v; want \"yes\"", buf[:max(n, 0)], err)
	}
}

// needUserXattrs skips t when the filesystem of dir keeps no user xattrs
// (a tmpfs of an old kernel, some overlays): the extraction could not be
// checked there.
func needUserXattrs(t *testing.T, dir string) {
	t.Helper()
	probe := filepath.Join(dir, ".xattr-probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	if err := unix.Lsetxattr(probe, "user.probe", []byte("x"), 0); err != nil {
		t.Skipf("the test directory's filesystem keeps no user xattrs (%v); set TMPDIR to one that does", err)
	}
}

func TestExtractRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../evil", "a/../../evil", "./a/.."} {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644})
		tw.Close()
		_, err := Extract(&b, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "climbs out") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}
