// Package hostio is the exchange between the runner and a host that sees
// the target's disk from outside: in QEMU, the emulator counts every
// request the guest sends to the disk image, and those counters check the
// guest's own (the kernel's /sys/block statistics) with a second,
// independent count.
//
// The channel is a virtio serial port named PortName, which only the host
// that serves it creates; a board has none, and the runner then says the
// host's counters are not available. The runner sends a Request line and
// waits for the Reply line with the same sequence number:
//
//	counters <seq>
//	counters <seq> drive=<id> wr_bytes=<n> wr_ops=<n> flush_ops=<n> unmap_bytes=<n> unmap_ops=<n>
//	error <seq> <text>
//
// The host answers after it has read the counters, so the runner knows
// that they include every request completed before it asked and none it
// sends after the answer. The package imports only the standard library.
package hostio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PortName is the name of the virtio serial port
// (/sys/class/virtio-ports/*/name) the host serves.
const PortName = "org.fsbench.io"

// Counters are the host's counters of one drive, cumulative since the
// machine started.
type Counters struct {
	Drive      string
	WriteBytes uint64
	WriteOps   uint64
	FlushOps   uint64
	UnmapBytes uint64
	UnmapOps   uint64
}

// Request is the line that asks for the counters, newline included.
func Request(seq uint64) string { return fmt.Sprintf("counters %d\n", seq) }

// ParseRequest reads a request line (without its newline).
func ParseRequest(line string) (uint64, error) {
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != "counters" {
		return 0, fmt.Errorf("hostio: not a request: %.60q", line)
	}
	return strconv.ParseUint(f[1], 10, 64)
}

// Reply is the host's answer to request seq, newline included.
func Reply(seq uint64, c Counters) string {
	return fmt.Sprintf("counters %d drive=%s wr_bytes=%d wr_ops=%d flush_ops=%d unmap_bytes=%d unmap_ops=%d\n",
		seq, c.Drive, c.WriteBytes, c.WriteOps, c.FlushOps, c.UnmapBytes, c.UnmapOps)
}

// ErrorReply is the host's answer when it could not read the counters.
// The text is kept to one line.
func ErrorReply(seq uint64, err error) string {
	text := strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, err.Error())
	return fmt.Sprintf("error %d %s\n", seq, text)
}

// ParseReply reads an answer line (without its newline) and returns its
// sequence number and counters, or the host's error.
func ParseReply(line string) (uint64, Counters, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0, Counters{}, fmt.Errorf("hostio: not an answer: %.60q", line)
	}
	seq, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, Counters{}, fmt.Errorf("hostio: not an answer: %.60q", line)
	}
	switch f[0] {
	case "error":
		return seq, Counters{}, errors.New("host: " + strings.Join(f[2:], " "))
	case "counters":
	default:
		return 0, Counters{}, fmt.Errorf("hostio: not an answer: %.60q", line)
	}
	var c Counters
	seen := map[string]bool{}
	for _, kv := range f[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || seen[k] {
			return seq, Counters{}, fmt.Errorf("hostio: bad field %.40q", kv)
		}
		seen[k] = true
		if k == "drive" {
			c.Drive = v
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return seq, Counters{}, fmt.Errorf("hostio: bad field %.40q", kv)
		}
		switch k {
		case "wr_bytes":
			c.WriteBytes = n
		case "wr_ops":
			c.WriteOps = n
		case "flush_ops":
			c.FlushOps = n
		case "unmap_bytes":
			c.UnmapBytes = n
		case "unmap_ops":
			c.UnmapOps = n
		default:
			return seq, Counters{}, fmt.Errorf("hostio: unknown field %.40q", k)
		}
	}
	for _, k := range []string{"drive", "wr_bytes", "wr_ops", "flush_ops", "unmap_bytes", "unmap_ops"} {
		if !seen[k] {
			return seq, Counters{}, fmt.Errorf("hostio: the answer lacks %s", k)
		}
	}
	return seq, c, nil
}
