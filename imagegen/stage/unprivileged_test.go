package stage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

// Environment of the unprivileged helper: TestUnprivileged re-runs this
// test binary as nobody with these set, and TestMain then stages the
// tarball and builds the image instead of running tests.
const (
	helperTar = "FSBENCH_STAGE_HELPER_TAR"
	helperOut = "FSBENCH_STAGE_HELPER_OUT"
)

func TestMain(m *testing.M) {
	if tarPath := os.Getenv(helperTar); tarPath != "" {
		if err := helper(tarPath, os.Getenv(helperOut)); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// buildImage is the whole path from a tarball to a reproducible ext4
// image: Build, mke2fs -d in the session, the debugfs step.
func buildImage(workdir, tarPath, img string) error {
	ctx := context.Background()
	tree, err := Build(ctx, workdir, Input{Tar: tarPath, Epoch: testEpoch})
	if err != nil {
		return err
	}
	defer tree.Remove()
	if err := mke2fs(ctx, tree, img); err != nil {
		return err
	}
	if err := resetTimes(ctx, tree, img); err != nil {
		return err
	}
	return tree.Remove()
}

func helper(tarPath, img string) error {
	if os.Getuid() == 0 {
		return errors.New("the unprivileged helper runs as root")
	}
	return buildImage(filepath.Join(filepath.Dir(img), "work"), tarPath, img)
}

// TestUnprivileged builds the same image as root and as nobody and
// compares the bytes: the fakeroot session makes root and a plain user
// stage the same tree, so CI (root) tests what developers run.
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skipf("running as uid %d: every other test already takes the unprivileged path", os.Getuid())
	}
	for _, tool := range []string{"fakeroot", "mke2fs", "debugfs", "setfattr"} {
		requireTool(t, tool)
	}
	var switcher []string
	if p, err := findTool("setpriv"); err == nil {
		switcher = []string{p, "--reuid=65534", "--regid=65534", "--clear-groups", "--"}
	} else if p, err := findTool("runuser"); err == nil {
		switcher = []string{p, "-u", "nobody", "--"}
	} else {
		testenv.Missing(t, "setpriv")
	}

	// A directory nobody owns, outside go test's root-only ones, with a
	// copy of this test binary.
	shared, err := os.MkdirTemp("", "stage-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chown(shared, 65534, 65534))
	must(os.Chmod(shared, 0o755))
	self, err := os.Executable()
	must(err)
	bin := filepath.Join(shared, "stage.test")
	must(copyFile(self, bin, 0o755))
	tarPath := writeTarball(t, filepath.Join(shared, "rootfs.tar"), rootfs(), "gzip")

	rootImg := filepath.Join(t.TempDir(), "root.img")
	must(buildImage(filepath.Join(t.TempDir(), "work"), tarPath, rootImg))

	nobodyImg := filepath.Join(shared, "nobody.img")
	cmd := exec.Command(switcher[0], append(switcher[1:], bin)...)
	cmd.Dir = shared
	cmd.Env = append(os.Environ(), helperTar+"="+tarPath, helperOut+"="+nobodyImg,
		"TMPDIR="+shared, "HOME="+shared, "PATH="+os.Getenv("PATH")+":/usr/sbin:/sbin")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if !strings.Contains(string(out), "helper:") {
			t.Skipf("cannot run a process as nobody here (%v): %s", err, out)
		}
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if a, b := readFile(t, rootImg), readFile(t, nobodyImg); !bytes.Equal(a, b) {
		t.Errorf("the image built as nobody differs from root's in %d bytes", diffBytes(a, b))
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
