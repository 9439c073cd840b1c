package imagegen

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
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
