package linux

import (
	"errors"

	"golang.org/x/sys/unix"
)

// SyncFS writes out the filesystem holding dir.
func SyncFS(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Syncfs(fd)
}

// Errno returns the errno behind err, 0 when there is none.
func Errno(err error) int {
	var no unix.Errno
	if errors.As(err, &no) {
		return int(no)
	}
	return 0
}

// ReadFD is read(2), repeated when a signal interrupts it before any data
// moved (the Go runtime signals threads to preempt them).
func ReadFD(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Read(fd, buf)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// WriteAll writes buf at the file offset, calling write(2) until done.
func WriteAll(fd int, buf []byte) error {
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
