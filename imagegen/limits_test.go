package imagegen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// A host tool runs in the empty directory of its limits, never in the
// user's working directory, and is stopped at its timeout with an error
// that says so.
func TestToolLimits(t *testing.T) {
	lim, err := scratchLimits(t.TempDir(), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if lim.timeout != 11*time.Minute {
		t.Errorf("timeout for 1GiB: %v", lim.timeout)
	}
	out, err := runTool(context.Background(), plainRunner, lim, []string{"sh", "-c", "pwd; ls -A | wc -l"}, nil)
	if err != nil || strings.TrimSpace(out) != lim.dir+"\n0" {
		t.Errorf("the tool ran in %q (%v), want the empty %s", out, err, lim.dir)
	}
	lim.timeout = 200 * time.Millisecond
	start := time.Now()
	_, err = runTool(context.Background(), plainRunner, lim, []string{"sleep", "10"}, nil)
	var te *ToolError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "ran longer than 200ms and was stopped") || time.Since(start) > 5*time.Second {
		t.Errorf("a tool past its timeout: %v after %v", err, time.Since(start))
	}
	// The caller's cancellation stays a cancellation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runTool(ctx, plainRunner, lim, []string{"sleep", "10"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// A rebuild removes what a killed build left in the output directory,
// and leaves what a build still running beside it is writing.
func TestStaleOutputsRemoved(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone, alive := dead.Process.Pid, os.Getpid()
	dir := t.TempDir()
	mk := func(name string, isDir bool) {
		p := filepath.Join(dir, name)
		var err error
		if isDir {
			err = os.Mkdir(p, 0o755)
		} else {
			err = os.WriteFile(p, []byte("x"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	stale := []string{fmt.Sprintf(".work-%d-123", gone), fmt.Sprintf(".disk.img.partial-%d-456", gone)}
	kept := []string{fmt.Sprintf(".work-%d-1", alive), fmt.Sprintf(".manifest.json.partial-%d-2", alive), "disk.img", ".work-notapid"}
	mk(stale[0], true)
	mk(stale[1], false)
	mk(kept[0], true)
	for _, k := range kept[1:] {
		mk(k, false)
	}
	removeStaleOutputs(dir, logrus.New())
	for _, s := range stale {
		if _, err := os.Stat(filepath.Join(dir, s)); err == nil {
			t.Errorf("%s was left", s)
		}
	}
	for _, k := range kept {
		if _, err := os.Stat(filepath.Join(dir, k)); err != nil {
			t.Errorf("%s was removed", k)
		}
	}
}
