package runner

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// needRoot skips a test that mounts filesystems when not run as root.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Missing(t, "root to attach loop devices and mount filesystems")
	}
}

var mkfsArgs = map[string][]string{
	"ext4":  {"mkfs.ext4", "-q", "-F"},
	"xfs":   {"mkfs.xfs", "-q", "-f"},
	"btrfs": {"mkfs.btrfs", "-q", "-f"},
}

// loopPart makes a real filesystem of type fs in a file of size bytes,
// attaches it to a loop device and returns the partition a plan would name.
// Cleanup unmounts and detaches it.
func loopPart(t *testing.T, fs string, size int64) *runplan.Partition {
	t.Helper()
	needRoot(t)
	mk := mkfsArgs[fs]
	testenv.Tool(t, mk[0])
	dir := t.TempDir()
	img := filepath.Join(dir, fs+".img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, size); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mk[0], append(mk[1:], img)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mk[0], err, out)
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		testenv.Missing(t, "a loop device: "+err.Error())
	}
	dev := strings.TrimSpace(string(out))
	mnt := filepath.Join(dir, "mnt")
	t.Cleanup(func() {
		exec.Command("umount", "-R", mnt).Run()
		exec.Command("losetup", "-d", dev).Run()
	})
	return &runplan.Partition{
		Name: "bench", Number: 2, Device: dev, Size: size, FS: fs,
		Mountpoint: mnt, Flags: []string{"noatime"},
	}
}

// planFor is a plan with the given partitions and steps.
//
// Each step is completed the way the host's plan compiles it: the schema
// this runner implements for its recipe, the count of its results from
// its iterations (or dd_sweep's passes) parameter, its timeout parameter.
func planFor(parts []runplan.Partition, steps ...runplan.Step) *runplan.Plan {
	for i := range steps {
		s := &steps[i]
		if s.Schema == 0 {
			s.Schema = registry[s.Recipe].Schema
		}
		for _, count := range []string{"iterations", "passes"} {
			if n, err := s.Params.Int(count); err == nil && s.Iterations == 0 {
				s.Iterations = int(n)
			}
		}
		s.Iterations = max(s.Iterations, 1)
		if d, err := s.Params.Duration("timeout"); err == nil && s.Timeout == 0 {
			s.Timeout = runplan.Duration(d)
		}
	}
	return &runplan.Plan{
		Format: runplan.Format, Spec: "test.fsb.hcl", Fingerprint: "sha256:test",
		Variant: "v", StateDir: "/unused", Partitions: parts, Steps: steps,
	}
}

// decodeFrames returns the results framed in console output.
func decodeFrames(t *testing.T, console []byte) []resultframe.Result {
	t.Helper()
	d := resultframe.NewDecoder()
	var out []resultframe.Result
	for _, l := range bytes.SplitAfter(console, []byte{'\n'}) {
		for _, ev := range d.FeedLine(string(bytes.TrimRight(l, "\n"))) {
			if ev.Problem != nil {
				t.Errorf("frame problem: %v", ev.Problem)
			}
			if ev.Result != nil {
				out = append(out, *ev.Result)
			}
		}
	}
	return out
}

// runOnce runs plan p with state in dir and returns the console output.
func runOnce(t *testing.T, p *runplan.Plan, dir string) ([]byte, Status, error) {
	t.Helper()
	var console bytes.Buffer
	st, err := Run(context.Background(), Options{Plan: p, StateDir: dir, Console: &console,
		Reboot: func(string) error { return nil }})
	return console.Bytes(), st, err
}
