// Package capture captures the console of a booting board or QEMU guest
// and timestamps it the way grabserial does, so that fsbench can measure boot
// time from the serial line.
//
// It opens a serial port or a pty slave with termios (raw, 8N1, a standard
// baud rate, optional RTS/CTS) or connects to a QEMU unix-socket chardev, then
// stamps every line with the monotonic clock read right after the read() that
// returned the line's first byte. On top of the lines, [Capture] prints
// "[abs delta] line" output, resets the time base on a pattern, stops on a quit
// pattern or a timeout, and records boot milestones (root mount, init start,
// shell prompt).
//
// Two rules are the reason the package exists and must never be broken:
//
//   - It never drops or alters bytes. The raw log receives exactly the byte
//     stream read from the device (UTF-8 split anywhere, CR/LF mixes, escape
//     sequences, NULs); cleaning (trailing CR, ANSI escapes) is done only on
//     copies used for matching and display.
//   - It never polls on a tick. The reading goroutine sleeps until the
//     kernel reports bytes (the runtime's epoll, for a port from OpenSerial
//     or OpenUnix; a blocking read(2) for other readers) and reads them at
//     once, and the timestamp is taken right after that read, not at the
//     next turn of a loop. Partial lines (a busybox prompt has no newline)
//     are flushed by a timer that only runs while an incomplete line is
//     pending.
//
// The reading goroutine cuts the lines itself, so the rest of the program
// is woken once per line, not once per read, and while it waits it holds
// no thread: the runtime's monitor thread, which watches goroutines
// blocked in system calls, can sleep (see pollSource). With PriorityHigh
// the threads that run it also ask the kernel for a higher priority, best
// effort, so that a loaded machine does not delay the stamps; see
// Priority.
package capture
