package ioacct

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/blocktrace"
	"github.com/fsbench/fsbench/wire/runplan"
)

// BlockCapture records the requests a partition's disk completes, from
// the kernel's block:block_rq_complete event in a tracefs instance of the
// runner's own, into a block trace (package wire/blocktrace): the
// device-level input of the host's flash model. A reader drains the
// instance's trace_pipe while the workload runs; the events the ring
// buffer had to drop are counted, never hidden.
type BlockCapture struct {
	instance string
	src      blocktrace.Source
	enc      *blocktrace.StringEncoder
	limit    int

	mu       sync.Mutex
	lost     int64 // events the ring buffer dropped
	failed   int64 // requests the device failed
	cut      bool  // the trace reached its limit
	parseErr error // the first line that did not parse
	done     chan struct{}
	stop     chan struct{}
}

// traceInstance is the name of the trace's tracefs instance.
const traceInstance = "fsbench-trace"

// StartBlockCapture starts recording the requests of partition p, up to
// limit bytes of encoded trace.
func StartBlockCapture(p *runplan.Partition, limit int) (*BlockCapture, error) {
	ext, err := sysExtent(p.Device)
	if err != nil {
		return nil, err
	}
	dev := ext.disk
	root, err := tracefsRoot()
	if err != nil {
		return nil, err
	}
	inst := filepath.Join(root, "instances", traceInstance)
	unix.Rmdir(inst)
	if err := os.Mkdir(inst, 0o700); err != nil {
		return nil, fmt.Errorf("a tracefs instance: %w", err)
	}
	c := &BlockCapture{instance: inst, limit: limit, enc: blocktrace.NewStringEncoder(blocktrace.Options{Times: true}),
		src:  blocktrace.Source{Major: dev[0], Minor: dev[1], Start: ext.start, Sectors: ext.sectors},
		done: make(chan struct{}), stop: make(chan struct{})}
	ev := filepath.Join(inst, "events", "block", "block_rq_complete")
	kdev := uint64(dev[0])<<20 | uint64(dev[1])
	for _, w := range []struct{ file, value string }{
		// A few MiB a CPU hold a busy second's events while the reader
		// is away.
		{filepath.Join(inst, "buffer_size_kb"), "4096"},
		{filepath.Join(ev, "filter"), fmt.Sprintf("dev == %d", kdev)},
		{filepath.Join(ev, "enable"), "1"},
		{filepath.Join(inst, "tracing_on"), "1"},
	} {
		if err := os.WriteFile(w.file, []byte(w.value), 0); err != nil {
			c.remove()
			if errors.Is(err, os.ErrNotExist) {
				return nil, errors.New("the kernel has no block:block_rq_complete event (BLK_DEV_IO_TRACE)")
			}
			return nil, fmt.Errorf("tracing %s: %w", filepath.Base(w.file), err)
		}
	}
	pipe, err := os.OpenFile(filepath.Join(inst, "trace_pipe"), os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		c.remove()
		return nil, err
	}
	go c.read(pipe)
	return c, nil
}

// read drains the pipe until stop, then once more.
func (c *BlockCapture) read(pipe *os.File) {
	defer close(c.done)
	defer pipe.Close()
	var pending []byte
	buf := make([]byte, 64<<10)
	stopping := false
	for {
		n, err := unix.Read(int(pipe.Fd()), buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			for {
				i := bytes.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				c.line(string(pending[:i]))
				pending = pending[i+1:]
			}
			continue
		}
		if err != nil && err != unix.EAGAIN && err != unix.EINTR {
			c.mu.Lock()
			c.parseErr = fmt.Errorf("reading the trace: %w", err)
			c.mu.Unlock()
			return
		}
		if stopping {
			return
		}
		select {
		case <-c.stop:
			stopping = true
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// line takes one line of the trace.
func (c *BlockCapture) line(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// "CPU:1 [LOST 12 EVENTS]": the ring buffer overran.
	if i := strings.Index(s, "[LOST "); i >= 0 {
		f := strings.Fields(s[i+len("[LOST "):])
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			c.lost += max(n, 1)
		}
		return
	}
	r, ok, err := c.src.ParseLine(s)
	switch {
	case errors.Is(err, blocktrace.ErrRequestFailed):
		c.failed++
	case err != nil:
		if c.parseErr == nil {
			c.parseErr = err
		}
	case !ok || c.cut:
	case c.enc.Len() >= c.limit:
		c.cut = true
	default:
		if err := c.enc.Encode(r); err != nil && c.parseErr == nil {
			c.parseErr = err
		}
	}
}

// Finish stops the trace and adds it to out: the trace itself when it is
// whole, and what was lost.
func (c *BlockCapture) Finish(out *step.Outcome) {
	overrun := c.overrun()
	os.WriteFile(filepath.Join(c.instance, "tracing_on"), []byte("0"), 0)
	close(c.stop)
	<-c.done
	c.remove()
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.enc.Totals()
	out.Metric("trace_records", float64(t.Records), "")
	lost := max(c.lost, overrun)
	var why []string
	if lost > 0 {
		why = append(why, fmt.Sprintf("%d events dropped by the kernel's trace buffer", lost))
	}
	if c.cut {
		why = append(why, fmt.Sprintf("cut at trace_limit (%d KiB encoded)", c.limit>>10))
	}
	if c.parseErr != nil {
		why = append(why, c.parseErr.Error())
	}
	if c.failed > 0 {
		out.Attr("block_trace_failed", fmt.Sprintf("%d requests failed", c.failed))
	}
	if len(why) > 0 {
		out.Attr("block_trace_lost", strings.Join(why, "; "))
		return
	}
	s, err := c.enc.String()
	if err != nil {
		out.Attr("block_trace_lost", err.Error())
		return
	}
	out.Attr("block_trace_lost", "0")
	out.Attr("block_trace", s)
}

// overrun sums the events the instance's buffers dropped
// (per_cpu/cpuN/stats "overrun:").
func (c *BlockCapture) overrun() int64 {
	files, _ := filepath.Glob(filepath.Join(c.instance, "per_cpu", "cpu*", "stats"))
	var n int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "overrun:"); ok {
				v, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				n += v
			}
		}
	}
	return n
}

// remove takes the instance down.
func (c *BlockCapture) remove() {
	os.WriteFile(filepath.Join(c.instance, "events", "block", "block_rq_complete", "enable"), []byte("0"), 0)
	unix.Rmdir(c.instance)
}
