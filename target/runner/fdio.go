package runner

import (
	"errors"

	"golang.org/x/sys/unix"
)

// readFD is read(2), repeated when a signal interrupts it before any data
// moved (the Go runtime signals threads to preempt them).
func readFD(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// writeAll writes buf at the file offset, calling write(2) until done.
func writeAll(fd int, buf []byte) error {
	for len(buf) > 0 {
		n, err := unix.Write(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		buf = buf[n:]
	}
	return nil
}
