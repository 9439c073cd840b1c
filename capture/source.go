//go:build linux

package capture

import (
	"io"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// source is how the reading goroutine gets bytes: read fills p and stamps
// the moment the bytes were handed over.
type source interface {
	read(p []byte) (n int, t time.Time, err error)
}

// pollSource reads a descriptor in non-blocking mode that the runtime's
// poller watches (os.OpenFile of a tty, OpenSerial, OpenUnix, os.Pipe,
// net.UnixConn). Waiting for bytes then holds no thread and no P: the
// goroutine sleeps in the poller, and the thread that epoll_wait wakes
// when bytes arrive runs it at once.
//
// A goroutine that waits in read(2) instead keeps its P all that time, and
// the runtime's monitor thread, which watches such Ps, stays awake: it
// polls every 20 µs for a millisecond after every pause of the console,
// then every 10 ms, and on a 2-CPU VM its wake-ups cost more than the
// reading itself (BENCHMARKS.md, "The reading goroutine waits in the
// runtime's poller").
//
// The read(2) itself is a raw system call: on a non-blocking descriptor it
// never blocks, so the runtime need not be told (an ordinary system call
// would wake the monitor thread from its sleep at every read).
type pollSource struct {
	rc syscall.RawConn
	// f, when set, takes a network console's protocol out of each read.
	f filtered
}

// filtered is a connection whose bytes need a pass right after each
// read(2): a telnet connection's commands come out, and the console's
// bytes stay at the front. Bytes read before the capture began (while
// negotiating) are handed over first.
type filtered interface {
	filterRead(p []byte) int
	takePending(p []byte) int
}

// newPollSource returns a pollSource for src when src is a file or
// connection in the runtime's poller with a non-blocking descriptor, and
// false otherwise. Only such a file accepts a read deadline; setting a zero
// one also clears any deadline left on it.
func newPollSource(src io.Reader) (*pollSource, bool) {
	sc, ok := src.(syscall.Conn)
	if !ok {
		return nil, false
	}
	dl, ok := src.(interface{ SetReadDeadline(time.Time) error })
	if !ok || dl.SetReadDeadline(time.Time{}) != nil {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	nonblock := false
	err = rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	})
	if err != nil || !nonblock {
		// A descriptor switched to blocking mode: a raw read would
		// block inside the runtime.
		return nil, false
	}
	f, _ := src.(filtered)
	return &pollSource{rc: rc, f: f}, true
}

func (s *pollSource) read(p []byte) (n int, t time.Time, err error) {
	if s.f != nil {
		if n := s.f.takePending(p); n > 0 {
			return n, time.Now(), nil
		}
	}
	var rerr error
	err = s.rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = rawRead(fd, p)
			if rerr != unix.EINTR {
				break
			}
		}
		t = time.Now() // first thing after read(): this is the stamp
		// With edge-triggered epoll, waiting is right only after EAGAIN.
		return rerr != unix.EAGAIN
	})
	switch {
	case err != nil:
		if s.rc.Control(func(uintptr) {}) != nil {
			// The file was closed under the Reader: the end of its input.
			err = io.EOF
		}
		return 0, t, err
	case rerr != nil:
		return 0, t, rerr
	case n == 0:
		return 0, t, io.EOF
	case s.f != nil:
		// Commands only: no console byte in this read.
		return s.f.filterRead(p[:n]), t, nil
	}
	return n, t, nil
}

// rawRead is read(2) without telling the runtime, for a non-blocking
// descriptor only.
func rawRead(fd uintptr, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	runtime.KeepAlive(p)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// blockingSource is any other reader: a blocking descriptor (the stamp is
// then taken when read(2) returns) or a reader of the program's own.
type blockingSource struct {
	r io.Reader
}

func (s blockingSource) read(p []byte) (int, time.Time, error) {
	n, err := s.r.Read(p)
	return n, time.Now(), err
}

func sourceOf(src io.Reader) source {
	if s, ok := newPollSource(src); ok {
		return s
	}
	return blockingSource{src}
}
