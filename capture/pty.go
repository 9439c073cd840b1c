package capture

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a new pseudo-terminal pair and returns its master and the
// path of its slave, which OpenSerial opens like a serial port. Tests and
// benchmarks play a console into the master: /dev/ptmx, unlockpt
// (TIOCSPTLCK 0) and ptsname (TIOCGPTN); grantpt is a no-op with devpts.
// The master is blocking, so a writer waits when the slave's buffer is full
// and no byte is lost.
func OpenPTY() (master *os.File, slave string, err error) {
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	if err := unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(mfd)
		return nil, "", fmt.Errorf("unlockpt: %w", err)
	}
	n, err := unix.IoctlGetUint32(mfd, unix.TIOCGPTN)
	if err != nil {
		unix.Close(mfd)
		return nil, "", fmt.Errorf("ptsname: %w", err)
	}
	return os.NewFile(uintptr(mfd), "/dev/ptmx"), fmt.Sprintf("/dev/pts/%d", n), nil
}
