package imagegen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// tmpfsDir returns a private directory in the default scratch tmpfs, or
// skips the test.
func tmpfsDir(t *testing.T) string {
	t.Helper()
	if defaultScratch == "" || memoryRoom(defaultScratch) == 0 {
		t.Skipf("no tmpfs at %q with room for a scratch directory", defaultScratch)
	}
	dir, err := os.MkdirTemp(defaultScratch, "fsbench-test-")
	if err != nil {
		t.Skipf("no tmpfs at %q with room for a scratch directory: %v", defaultScratch, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestScratchMatchesDisk builds the same images with their filesystems
// made in a tmpfs and on disk: the same bytes, and nothing left in the
// tmpfs afterwards.
func TestScratchMatchesDisk(t *testing.T) {
	needFS(t, "vfat", "ext4", "f2fs", "squashfs")
	shm := tmpfsDir(t)
	path := writeSpec(t, reproducible)
	s, p, diags := plan.LoadSealed(path, spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	v := p.Variants[0]
	img := v.Images[0]
	var logged bytes.Buffer
	digest := func(parent string) digests {
		out := t.TempDir()
		log := logrus.New()
		log.Out, log.Level = &logged, logrus.DebugLevel
		_, err := Build(context.Background(), p, v, Options{OutDir: out, SpecDir: s.Dir, Epoch: 1700000000, Log: log,
			CacheDir: testbin.CacheDir(), NoPayload: true, scratchParent: parent})
		if err != nil {
			t.Fatal(err)
		}
		return imageDigests(t, filepath.Join(out, v.Name, img.File), img)
	}
	mem := digest(shm)
	if !strings.Contains(logged.String(), "building the filesystem in "+shm) {
		t.Fatalf("nothing was built in %s:\n%s", shm, logged.String())
	}
	logged.Reset()
	disk := digest(t.TempDir())
	if strings.Contains(logged.String(), "building the filesystem in") {
		t.Fatalf("built in memory without a tmpfs:\n%s", logged.String())
	}
	if mem.outside != disk.outside {
		t.Error("the bytes outside the partitions differ")
	}
	for _, part := range img.Partitions {
		if mem.parts[part.Name] != disk.parts[part.Name] {
			t.Errorf("partition %s: %s made in a tmpfs, %s on disk", part.Name, mem.parts[part.Name], disk.parts[part.Name])
		}
	}
	if left, _ := os.ReadDir(shm); len(left) != 0 {
		t.Errorf("left in the tmpfs: %v", left)
	}
}

// TestScratchReserve: a partition goes to memory only while the full
// sizes of those there fit the room, and its room comes back once.
func TestScratchReserve(t *testing.T) {
	s := &scratch{dir: "/mem", room: 100}
	a, releaseA := s.reserve(60)
	b, releaseB := s.reserve(50)
	if a != "/mem" || b != "" {
		t.Fatalf("60 then 50 of 100: %q, %q; want the first in memory, the second on disk", a, b)
	}
	releaseB()
	releaseA()
	releaseA()
	if s.room != 100 {
		t.Errorf("room after releasing everything (one twice): %d, want 100", s.room)
	}
	if d, _ := (&scratch{}).reserve(1); d != "" {
		t.Errorf("a scratch without a tmpfs gave %q", d)
	}
}

// TestScratchRemovesStale: a scratch directory whose build was killed is
// removed by the next build; a running build's, and anything else, stay.
func TestScratchRemovesStale(t *testing.T) {
	shm := tmpfsDir(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(shm, scratchPrefix+strconv.Itoa(gone.Process.Pid)+"-1")
	running := filepath.Join(shm, scratchPrefix+strconv.Itoa(os.Getpid())+"-2")
	other := filepath.Join(shm, "fsbench-something-else")
	for _, d := range []string{stale, running, other} {
		if err := os.MkdirAll(filepath.Join(d, "card", "rootfs"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s := newScratch(shm)
	defer s.remove()
	if s.dir == "" {
		t.Fatal("no scratch directory")
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed build's %s is still there (%v)", stale, err)
	}
	for _, d := range []string{running, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v, want it kept", d, err)
		}
	}
}
