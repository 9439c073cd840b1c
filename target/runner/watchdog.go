package runner

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// WatchdogDevice is the kernel's watchdog character device.
const WatchdogDevice = "/dev/watchdog"

// watchdog is an armed hardware watchdog. Once armed, the board resets
// timeout after the last keepalive, whatever the runner does: closing the
// device without the magic character leaves it running, as do a crash of
// the runner and a kernel that hangs.
type watchdog struct {
	f        *os.File
	identity string
	timeout  time.Duration
}

// armWatchdog opens the watchdog, sets its timeout (WDIOC_SETTIMEOUT; the
// driver may round it) and feeds it once, so that the reset comes timeout
// from now.
func armWatchdog(timeout time.Duration) (*watchdog, error) {
	f, err := os.OpenFile(WatchdogDevice, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the watchdog (does the kernel have the board's watchdog driver?): %w", err)
	}
	w := &watchdog{f: f, identity: "unknown"}
	fd := int(f.Fd())
	if info, err := unix.IoctlGetWatchdogInfo(fd); err == nil {
		w.identity = string(bytes.TrimRight(info.Identity[:], "\x00"))
	}
	secs := int(timeout / time.Second)
	if err := unix.IoctlSetPointerInt(fd, unix.WDIOC_SETTIMEOUT, secs); err != nil {
		w.disarm()
		return nil, fmt.Errorf("setting the watchdog timeout to %ds: %w", secs, err)
	}
	// The driver writes back the timeout it set.
	if got, err := unix.IoctlGetInt(fd, unix.WDIOC_GETTIMEOUT); err == nil {
		secs = got
	}
	w.timeout = time.Duration(secs) * time.Second
	if err := unix.IoctlWatchdogKeepalive(fd); err != nil {
		w.disarm()
		return nil, fmt.Errorf("feeding the watchdog: %w", err)
	}
	return w, nil
}

// disarm stops the watchdog with the magic close, for the case where the
// reset did not come. A driver built with nowayout ignores it.
func (w *watchdog) disarm() {
	w.f.Write([]byte("V"))
	w.f.Close()
}
