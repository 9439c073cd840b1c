package command

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
)

// TestStartHeldSurvivesEndedThreads ends many threads while a child with
// a death signal runs: goroutines that return locked take their thread
// with them, as a capture reader with a raised priority does. A child
// forked from any of those threads would be killed.
func TestStartHeldSurvivesEndedThreads(t *testing.T) {
	sleep := testenv.Tool(t, "sleep")
	const children = 8
	var dones []<-chan error
	for range children {
		cmd := exec.Command(sleep, "1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		done, err := StartHeld(cmd)
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	// Goroutines run on whatever thread is idle, the forking ones
	// included when they are not held; each of these ends its thread.
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		var wg sync.WaitGroup
		for range 4 * runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
			}()
		}
		wg.Wait()
	}
	for i, done := range dones {
		if err := <-done; err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
}

// TestStartHeldReportsStartErrors returns the error of a command that
// cannot start, with no channel to wait on.
func TestStartHeldReportsStartErrors(t *testing.T) {
	done, err := StartHeld(exec.Command("/nonexistent/fsbench-no-such-tool"))
	if err == nil || done != nil {
		t.Fatalf("got %v, %v; want an error and no channel", done, err)
	}
}
