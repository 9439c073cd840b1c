package fio

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"golang.org/x/sys/unix"
)

// unit is one I/O, fio's io_u: a slot with its own buffer, and what the I/O
// does this time.
type unit struct {
	slot   int
	buf    []byte
	file   *jobFile
	op     op
	offset int64
	done   int64 // bytes transferred so far; a short transfer goes again for the rest
	start  int64 // ns on the run's clock: the unit was filled (fio's start_time)
	issue  int64 // ns: the I/O went to the kernel (fio's issue_time)
}

// ioEngine is how reads and writes reach the kernel, fio's ioengine=.
type ioEngine interface {
	// submit starts u. Synchronous engines finish it, and account for it
	// with w.complete, before they return.
	submit(w *worker, u *unit) error
	// reap waits for least of the I/Os in flight and completes them.
	reap(w *worker, least int) error
	inflight() int
	close() error
}

// syncEngine is ioengine=psync (pread/pwrite) or, not positional,
// ioengine=sync (lseek when the descriptor is elsewhere, then read/write).
type syncEngine struct{ positional bool }

func (e *syncEngine) submit(w *worker, u *unit) error {
	f := u.file
	u.issue = w.now()
	for u.done < int64(len(u.buf)) {
		off, b := u.offset+u.done, u.buf[u.done:]
		var n int
		var err error
		switch {
		case e.positional && u.op == opRead:
			n, err = unix.Pread(f.fd, b, off)
		case e.positional:
			n, err = unix.Pwrite(f.fd, b, off)
		default:
			if f.fdPos != off {
				if _, err = unix.Seek(f.fd, off, io.SeekStart); err != nil {
					return w.ioError(u, err)
				}
				f.fdPos = off
			}
			if u.op == opRead {
				n, err = unix.Read(f.fd, b)
			} else {
				n, err = unix.Write(f.fd, b)
			}
			if n > 0 {
				f.fdPos += int64(n)
			}
		}
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return w.ioError(u, err)
		case n == 0:
			return w.ioError(u, io.ErrUnexpectedEOF)
		}
		u.done += int64(n)
	}
	w.complete(u, w.now())
	return nil
}

func (e *syncEngine) reap(*worker, int) error { return nil }
func (e *syncEngine) inflight() int           { return 0 }
func (e *syncEngine) close() error            { return nil }

// aioEngine is ioengine=libaio: Linux native AIO with up to depth I/Os in
// flight. Like fio's libaio with its defaults (iodepth_batch=1,
// iodepth_batch_complete_min=1, iodepth_batch_complete_max unset, so equal
// to the min), each I/O is submitted as soon as it is ready, and once depth
// are in flight the engine reaps exactly one: the queue never drains by
// more than one I/O, which is what keeps the device at iodepth.
type aioEngine struct {
	ctx    uintptr
	area   []byte     // mapped: the iocbs, the events, io_submit's pointer
	iocbs  []iocb     // by slot
	events []aioEvent // filled by io_getevents
	list   *uintptr   // a one-entry array of iocb pointers
	units  []*unit    // in flight, by slot
	n      int
}

func newAIOEngine(depth int) (*aioEngine, error) {
	iocbSize, eventSize := int(unsafe.Sizeof(iocb{})), int(unsafe.Sizeof(aioEvent{}))
	area, err := unix.Mmap(-1, 0, depth*(iocbSize+eventSize)+8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("libaio: %w", err)
	}
	e := &aioEngine{
		area:   area,
		iocbs:  unsafe.Slice((*iocb)(unsafe.Pointer(&area[0])), depth),
		events: unsafe.Slice((*aioEvent)(unsafe.Pointer(&area[depth*iocbSize])), depth),
		list:   (*uintptr)(unsafe.Pointer(&area[depth*(iocbSize+eventSize)])),
		units:  make([]*unit, depth),
	}
	if err := ioSetup(depth, &e.ctx); err != nil {
		unix.Munmap(area)
		switch err {
		case unix.ENOSYS:
			return nil, errors.New("libaio: the kernel has no AIO (CONFIG_AIO): io_setup: function not implemented")
		case unix.EAGAIN:
			return nil, fmt.Errorf("libaio: io_setup(%d): more than /proc/sys/fs/aio-max-nr events", depth)
		}
		return nil, fmt.Errorf("libaio: io_setup(%d): %w", depth, err)
	}
	return e, nil
}

func (e *aioEngine) submit(w *worker, u *unit) error {
	if err := e.queue(w, u); err != nil {
		return err
	}
	if u.done == 0 {
		u.issue = w.now()
		w.submitted(u)
	}
	return nil
}

// queue hands u's remaining bytes to the kernel.
func (e *aioEngine) queue(w *worker, u *unit) error {
	cmd := uint16(iocbCmdPread)
	if u.op == opWrite {
		cmd = iocbCmdPwrite
	}
	cb := &e.iocbs[u.slot]
	*cb = iocb{
		data:   uint64(u.slot),
		opcode: cmd,
		fildes: uint32(u.file.fd),
		buf:    uint64(uintptr(unsafe.Pointer(&u.buf[u.done]))),
		nbytes: uint64(int64(len(u.buf)) - u.done),
		offset: u.offset + u.done,
	}
	*e.list = uintptr(unsafe.Pointer(cb))
	for {
		n, err := ioSubmit(e.ctx, 1, unsafe.Pointer(e.list))
		switch {
		case err == unix.EINTR || (err == nil && n == 0):
			continue
		case err == unix.EAGAIN && e.n > 0:
			// The kernel is out of resources: make room, as fio does.
			if err := e.reap(w, 1); err != nil {
				return err
			}
			continue
		case err != nil:
			return w.ioError(u, err)
		}
		break
	}
	e.units[u.slot] = u
	e.n++
	return nil
}

// reap waits until least I/Os have completed (fewer when fewer are in
// flight). An I/O that comes back short or interrupted is issued again and
// does not count, so the caller always gets the free units it waits for.
func (e *aioEngine) reap(w *worker, least int) error {
	for done := 0; done < least && e.n > 0; {
		want := min(least-done, e.n)
		n, err := ioGetevents(e.ctx, want, want, unsafe.Pointer(&e.events[0]))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("libaio: io_getevents: %w", err)
		}
		now := w.now()
		for _, ev := range e.events[:n] {
			u := e.units[ev.data]
			e.units[ev.data] = nil
			e.n--
			switch {
			case ev.res == -int64(unix.EINTR):
				// A filesystem without direct I/O (nilfs2) does the
				// I/O in io_submit's thread, where the Go runtime's
				// preemption signal can interrupt it before any byte
				// moved: issue it again.
				if err := e.queue(w, u); err != nil {
					return err
				}
				continue
			case ev.res < 0:
				return w.ioError(u, unix.Errno(-ev.res))
			case ev.res == 0:
				return w.ioError(u, io.ErrUnexpectedEOF)
			}
			u.done += ev.res
			if u.done < int64(len(u.buf)) {
				if err := e.submit(w, u); err != nil {
					return err
				}
				continue
			}
			w.complete(u, now)
			done++
		}
	}
	return nil
}

func (e *aioEngine) inflight() int { return e.n }

// close destroys the context, which waits for the I/Os still in flight, so
// the buffers can be unmapped after it.
func (e *aioEngine) close() error {
	err := ioDestroy(e.ctx)
	unix.Munmap(e.area)
	if err != nil {
		return fmt.Errorf("libaio: io_destroy: %w", err)
	}
	return nil
}
