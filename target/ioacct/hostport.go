package ioacct

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/wire/hostio"
)

// HostPort asks the host for its counters of the disk (package
// wire/hostio) on the virtio serial port it serves.
type HostPort struct {
	f   *os.File
	rd  *bufio.Reader
	seq uint64
}

// hostPortMissing says why a board has no host counters.
const hostPortMissing = "no virtio port " + hostio.PortName + " (a board, or a VM that fsbench does not run)"

// hostPortTimeout bounds the wait for an answer.
var hostPortTimeout = 10 * time.Second

// OpenHostPort opens the host's port, found under sys (/sys) with its
// node under dev (/dev), or returns nil when the target has none.
func OpenHostPort(sys, devDir string) (*HostPort, error) {
	names, _ := filepath.Glob(filepath.Join(sys, "class", "virtio-ports", "*", "name"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || strings.TrimSpace(string(b)) != hostio.PortName {
			continue
		}
		dev := filepath.Join(devDir, filepath.Base(filepath.Dir(n)))
		// Non-blocking, so that the runtime's poller serves the reads
		// and their deadline.
		fd, err := unix.Open(dev, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("the host's port %s: %w", dev, err)
		}
		f := os.NewFile(uintptr(fd), dev)
		return &HostPort{f: f, rd: bufio.NewReader(f), seq: uint64(time.Now().UnixNano())}, nil
	}
	return nil, nil
}

// counters asks for the host's counters and waits for the answer to this
// request; answers to earlier ones, which came too late, are skipped.
func (h *HostPort) counters() (hostio.Counters, error) {
	h.seq++
	if _, err := h.f.WriteString(hostio.Request(h.seq)); err != nil {
		return hostio.Counters{}, fmt.Errorf("asking the host: %w", err)
	}
	deadline := time.Now().Add(hostPortTimeout)
	if err := h.f.SetReadDeadline(deadline); err != nil {
		return hostio.Counters{}, fmt.Errorf("the host's port: %w", err)
	}
	for {
		line, err := h.rd.ReadString('\n')
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return hostio.Counters{}, fmt.Errorf("the host did not answer within %s", hostPortTimeout)
		}
		if err != nil {
			return hostio.Counters{}, fmt.Errorf("the host's port: %w", err)
		}
		seq, c, err := hostio.ParseReply(strings.TrimSpace(line))
		if seq != h.seq {
			continue
		}
		return c, err
	}
}
