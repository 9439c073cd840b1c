package imagegen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

const inPlaceSpec = `
image "disk" {
  size = "80MiB"
  partition "root" {
    size = "64MiB"
    filesystem { type = "ext4" }
    contents { dir = "rootfs" }
  }
}
`

// TestInPlaceMatchesStaged builds an ext4 partition from a directory read
// in place and from a staged copy of it: the bytes must be the same, the
// directory must be left as it was, and a directory staging must handle
// (here one with an xattr) must be staged. Files owned by another user
// exercise the owners the debugfs step resets, which needs root.
func TestInPlaceMatchesStaged(t *testing.T) {
	needFS(t, "ext4")
	path := writeSpec(t, inPlaceSpec)
	root := filepath.Join(filepath.Dir(path), "rootfs")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "var/private"), 0o700))
	must(os.WriteFile(filepath.Join(root, "bin/su"), []byte("su\n"), 0o755))
	must(unix.Chmod(filepath.Join(root, "bin/su"), 0o4755))
	must(os.Link(filepath.Join(root, "bin/tool"), filepath.Join(root, "bin/tool2")))
	must(unix.Mkfifo(filepath.Join(root, "var/fifo"), 0o600))
	must(os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	must(unix.Chmod(filepath.Join(root, "tmp"), 0o1777))
	big := bytes.Repeat([]byte("fsbench "), 1<<17) // 1MiB, several extents' worth
	must(os.WriteFile(filepath.Join(root, "usr/share/big"), big, 0o644))
	if os.Geteuid() == 0 {
		must(os.Lchown(filepath.Join(root, "var/private"), 1000, 1000))
		must(os.Lchown(filepath.Join(root, "bin/link"), 1000, 1000))
	} else {
		t.Log("not root: every file is this user's, and the debugfs step resets all their owners")
	}
	future := time.Unix(1800000000, 0)
	must(os.Chtimes(filepath.Join(root, "etc/hostname"), future, future))
	before := snapshot(t, root)

	staged := buildInPlace(t, path, true, nil)
	var log bytes.Buffer
	inplace := buildInPlace(t, path, false, &log)
	if staged != inplace {
		t.Errorf("ext4 read in place differs from ext4 staged: %s vs %s", inplace, staged)
	}
	if strings.Contains(log.String(), "staging ") {
		t.Errorf("the directory was staged: %s", log.String())
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("reading in place changed the directory:\n%s\nwas\n%s", after, before)
	}

	// An xattr: staged, and the same image as staging it on purpose.
	if err := unix.Lsetxattr(filepath.Join(root, "etc/hostname"), "user.origin", []byte("test"), 0); err != nil {
		t.Skipf("this filesystem refuses user xattrs (%v)", err)
	}
	staged = buildInPlace(t, path, true, nil)
	log.Reset()
	if got := buildInPlace(t, path, false, &log); got != staged {
		t.Errorf("with an xattr: %s, staged %s", got, staged)
	}
	if !strings.Contains(log.String(), "has xattrs") {
		t.Errorf("a directory with an xattr was not staged; log:\n%s", log.String())
	}
}

// buildInPlace builds the spec at path and returns the root partition's
// digest; log, when given, receives the debug log.
func buildInPlace(t *testing.T, path string, alwaysStage bool, log *bytes.Buffer) string {
	t.Helper()
	s, p, diags := plan.LoadSealed(path, spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	l := logrus.New()
	l.Out = io.Discard
	if log != nil {
		l.Out, l.Level = log, logrus.DebugLevel
	}
	out := t.TempDir()
	v := p.Variants[0]
	_, err := Build(context.Background(), p, v, Options{OutDir: out, SpecDir: s.Dir, Epoch: 1700000000, Log: l,
		CacheDir: testbin.CacheDir(), NoPayload: true, alwaysStage: alwaysStage})
	if err != nil {
		t.Fatal(err)
	}
	img := v.Images[0]
	return imageDigests(t, filepath.Join(out, v.Name, img.File), img).parts["root"]
}

// snapshot lists every entry of dir with its mode, owner, size and
// times, to show that nothing touched it.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %o %d:%d %d mtime=%d ctime=%d\n", p, st.Mode, st.Uid, st.Gid, st.Size, st.Mtim.Nano(), st.Ctim.Nano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
