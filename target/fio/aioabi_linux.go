package fio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Linux AIO ABI (include/uapi/linux/aio_abi.h), called through raw
// system calls because the runner has no cgo and so no libaio.
//
// struct iocb and struct io_event are made of fixed-width fields only, so
// they have the same 64- and 32-byte layout on amd64, arm64, riscv64 and
// 32-bit arm: pointers travel in __u64 fields, zero-extended on 32 bits
// (what libaio's PADDEDptr does on little-endian arm). What does differ on
// 32-bit arm is everything of native width: aio_context_t is an unsigned
// long, and io_submit takes an array of iocb pointers, so both are uintptr
// here, never uint64. aio_key and aio_rw_flags swap places on big-endian
// machines; both stay 0, so that does not matter. io_getevents is called
// without a timeout, which keeps 32-bit arm's old time32 timespec out of it.
type iocb struct {
	data      uint64 // aio_data: the unit's slot, returned in the event
	key       uint32 // aio_key
	rwFlags   uint32 // aio_rw_flags
	opcode    uint16 // aio_lio_opcode
	reqprio   int16  // aio_reqprio
	fildes    uint32 // aio_fildes
	buf       uint64 // aio_buf
	nbytes    uint64 // aio_nbytes
	offset    int64  // aio_offset
	reserved2 uint64 // aio_reserved2
	flags     uint32 // aio_flags
	resfd     uint32 // aio_resfd
}

// aioEvent is struct io_event.
type aioEvent struct {
	data uint64 // aio_data of the iocb
	obj  uint64 // the iocb's address
	res  int64  // bytes transferred, or -errno
	res2 int64
}

const (
	iocbCmdPread  = 0
	iocbCmdPwrite = 1
)

// Compile-time checks, done again for each GOARCH the runner is built for:
// an index out of range (or a negative one) is a build error.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(iocb{})-64]
	_ = [1]struct{}{}[unsafe.Offsetof(iocb{}.opcode)-16]
	_ = [1]struct{}{}[unsafe.Offsetof(iocb{}.fildes)-20]
	_ = [1]struct{}{}[unsafe.Offsetof(iocb{}.buf)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(iocb{}.offset)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(iocb{}.flags)-56]
	_ = [1]struct{}{}[unsafe.Sizeof(aioEvent{})-32]
	_ = [1]struct{}{}[unsafe.Offsetof(aioEvent{}.res)-16]
)

func ioSetup(nr int, ctx *uintptr) error {
	_, _, e := unix.Syscall(unix.SYS_IO_SETUP, uintptr(nr), uintptr(unsafe.Pointer(ctx)), 0)
	return errnoErr(e)
}

func ioDestroy(ctx uintptr) error {
	_, _, e := unix.Syscall(unix.SYS_IO_DESTROY, ctx, 0, 0)
	return errnoErr(e)
}

// ioSubmit submits the iocbs whose addresses are at list (mapped memory).
func ioSubmit(ctx uintptr, n int, list unsafe.Pointer) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_IO_SUBMIT, ctx, uintptr(n), uintptr(list))
	return int(r), errnoErr(e)
}

// ioGetevents waits, without a timeout, for at least min events and stores
// up to max at events (mapped memory).
func ioGetevents(ctx uintptr, min, max int, events unsafe.Pointer) (int, error) {
	r, _, e := unix.Syscall6(unix.SYS_IO_GETEVENTS, ctx, uintptr(min), uintptr(max), uintptr(events), 0, 0)
	return int(r), errnoErr(e)
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
