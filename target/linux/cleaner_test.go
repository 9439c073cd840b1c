package linux

import (
	"os/exec"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
)

func TestFindProcessAndAlive(t *testing.T) {
	cmd := exec.Command("sleep", "37")
	if err := cmd.Start(); err != nil {
		testenv.Missing(t, "sleep")
	}
	defer cmd.Process.Kill()
	pid, err := FindProcess([]string{"/no/such/dir/sleep", "37"})
	if err != nil || pid != cmd.Process.Pid {
		t.Errorf("findProcess = %d, %v; want %d", pid, err, cmd.Process.Pid)
	}
	if !Alive(pid) {
		t.Error("a running sleep is not alive")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Alive(pid) {
		t.Error("a reaped process is alive")
	}
}

func TestScaledPeriod(t *testing.T) {
	for _, c := range []struct {
		period  time.Duration
		ms      int64
		wall    time.Duration
		cur     int
		want    int
		restart bool
	}{
		// An hour of the device's time at 1000x: 3.6 s, rounded up.
		{time.Hour, 1000_000, time.Second, -1, 4, true},
		{time.Hour, 1000_000, time.Second, 4, 4, false},
		// The replay slowed to 400x: 9 s, more than twice 4.
		{time.Hour, 400_000, time.Second, 4, 9, true},
		// 500x: 7.2 s, within twice 4.
		{time.Hour, 500_000, time.Second, 4, 8, false},
		// Faster than the period: a second at least.
		{time.Minute, 3600_000, time.Second, -1, 1, true},
		// No protection asked: 0, once.
		{0, 60_000, time.Second, -1, 0, true},
		{0, 60_000, time.Second, 0, 0, false},
		// In real time the period is the device's.
		{time.Hour, 2000, 2 * time.Second, -1, 3600, true},
	} {
		got, restart := ScaledPeriod(c.period, c.ms, c.wall, c.cur)
		if got != c.want || restart != c.restart {
			t.Errorf("scaledPeriod(%v, %d ms in %v, cur %d) = %d, %v; want %d, %v",
				c.period, c.ms, c.wall, c.cur, got, restart, c.want, c.restart)
		}
	}
}
