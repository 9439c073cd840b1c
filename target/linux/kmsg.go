package linux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KmsgRecord is one record of the kernel log.
type KmsgRecord struct {
	Level int   // syslog level: 0 emerg ... 3 err, 4 warning, ... 7 debug
	Seq   int64 // the record's sequence number in the log
	Usec  int64 // timestamp, CLOCK_MONOTONIC microseconds
	Msg   string
}

// ReadKmsg returns the kernel log records still in the ring buffer.
func ReadKmsg() ([]KmsgRecord, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/kmsg: %w", err)
	}
	defer unix.Close(fd)
	return readRecords(fd)
}

// KmsgCursor reads the kernel log from the moment it is opened on, without
// reading again what the ring buffer held before (crash_states looks at
// the log of every state).
type KmsgCursor struct{ fd int }

// NewKmsgCursor opens a cursor at the end of the kernel log.
func NewKmsgCursor() (*KmsgCursor, error) {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening /dev/kmsg: %w", err)
	}
	if _, err := unix.Seek(fd, 0, unix.SEEK_END); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("seeking /dev/kmsg: %w", err)
	}
	return &KmsgCursor{fd}, nil
}

// Read returns the records the kernel logged since the cursor was opened
// or last read.
func (c *KmsgCursor) Read() ([]KmsgRecord, error) { return readRecords(c.fd) }

// Close closes the cursor.
func (c *KmsgCursor) Close() { unix.Close(c.fd) }

// readRecords reads the records of an open /dev/kmsg up to its end.
func readRecords(fd int) ([]KmsgRecord, error) {
	var out []KmsgRecord
	buf := make([]byte, 8192)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EPIPE) {
			continue // overwritten records: go on with the next one
		}
		if errors.Is(err, unix.EAGAIN) {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("reading /dev/kmsg: %w", err)
		}
		if r, ok := ParseKmsg(buf[:n]); ok {
			out = append(out, r)
		}
	}
}

// ParseKmsg parses "prio,seq,usec,flags[,...];message\n[ continuation]".
func ParseKmsg(b []byte) (KmsgRecord, bool) {
	head, msg, ok := bytes.Cut(b, []byte{';'})
	if !ok {
		return KmsgRecord{}, false
	}
	f := strings.Split(string(head), ",")
	if len(f) < 3 {
		return KmsgRecord{}, false
	}
	prio, err1 := strconv.Atoi(f[0])
	seq, err2 := strconv.ParseInt(f[1], 10, 64)
	usec, err3 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return KmsgRecord{}, false
	}
	line, _, _ := bytes.Cut(msg, []byte{'\n'})
	return KmsgRecord{Level: prio & 7, Seq: seq, Usec: usec, Msg: string(line)}, true
}

// WriteKmsg logs msg in the kernel log at notice level, so that it has a
// kernel timestamp and reaches the console.
func WriteKmsg(msg string) error {
	f, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("<5>" + msg + "\n")
	return err
}
