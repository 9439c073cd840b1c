package ioacct

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// writerHist sums, in the kernel, the sectors each task submits for
// writing to a range of a disk: a histogram trigger (Documentation/trace/
// histogram.rst) on block:block_bio_queue, in a tracefs instance of the
// runner's own so that nothing else tracing on the board is disturbed.
// The event stays off in the ring buffer; only the trigger runs.
type writerHist struct {
	instance string
	trigger  string
}

// tracefsInstance is the name of the runner's tracefs instance.
const tracefsInstance = "fsbench-io"

// writerSectors is what one task submitted.
type writerSectors struct {
	comm    string
	sectors int64
}

// startWriterHist starts counting the writes to sectors [start, end) of
// the disk dev (major, minor), as block_bio_queue sees them after the
// partition's remapping (absolute sectors).
func startWriterHist(dev [2]uint32, start, end uint64) (*writerHist, error) {
	root, err := tracefsRoot()
	if err != nil {
		return nil, err
	}
	inst := filepath.Join(root, "instances", tracefsInstance)
	unix.Rmdir(inst) // one a killed runner left
	if err := os.Mkdir(inst, 0o700); err != nil {
		return nil, fmt.Errorf("a tracefs instance: %w", err)
	}
	h := &writerHist{instance: inst}
	// The kernel's dev_t in trace events is major<<20 | minor.
	kdev := uint64(dev[0])<<20 | uint64(dev[1])
	h.trigger = fmt.Sprintf("hist:keys=comm:vals=hitcount,nr_sector:sort=nr_sector.descending:size=256 if dev == %d && sector >= %d && sector < %d && rwbs ~ \"*W*\"",
		kdev, start, end)
	if err := os.WriteFile(h.triggerFile(), []byte(h.trigger), 0); err != nil {
		h.close()
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("the kernel has no block:block_bio_queue event (BLK_DEV_IO_TRACE)")
		}
		return nil, fmt.Errorf("a histogram trigger on block_bio_queue (the kernel needs HIST_TRIGGERS): %w", err)
	}
	return h, nil
}

func (h *writerHist) triggerFile() string {
	return filepath.Join(h.instance, "events", "block", "block_bio_queue", "trigger")
}

// read returns the tasks and their sectors, most first.
func (h *writerHist) read() ([]writerSectors, error) {
	f, err := os.Open(filepath.Join(h.instance, "events", "block", "block_bio_queue", "hist"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseWriterHist(bufio.NewScanner(f))
}

// parseWriterHist reads the hist file: an entry a line,
//
//	{ comm: jbd2/vda3-8   } hitcount:          3  nr_sector:         24
//
// and a Dropped count at the end, which must be 0.
func parseWriterHist(sc *bufio.Scanner) ([]writerSectors, error) {
	var out []writerSectors
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "Dropped:"); ok {
			if n, _ := strconv.Atoi(strings.TrimSpace(rest)); n > 0 {
				return nil, fmt.Errorf("the histogram dropped %d entries", n)
			}
			continue
		}
		rest, ok := strings.CutPrefix(line, "{ comm:")
		if !ok {
			continue
		}
		comm, vals, ok := strings.Cut(rest, "}")
		f := strings.Fields(vals)
		i := slices.Index(f, "nr_sector:")
		if !ok || i < 0 || i+1 >= len(f) {
			return nil, fmt.Errorf("a histogram line %q", line)
		}
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("a histogram line %q", line)
		}
		out = append(out, writerSectors{comm: strings.TrimSpace(comm), sectors: n})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].sectors > out[j].sectors })
	return out, sc.Err()
}

// close removes the trigger and the instance; it may be called again.
func (h *writerHist) close() {
	if h.instance == "" {
		return
	}
	if h.trigger != "" {
		os.WriteFile(h.triggerFile(), []byte("!"+h.trigger), 0)
	}
	unix.Rmdir(h.instance)
	h.instance, h.trigger = "", ""
}

// tracefsRoot finds tracefs, mounting it where the kernel expects it when
// nothing has.
func tracefsRoot() (string, error) {
	for _, dir := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(filepath.Join(dir, "instances")); err == nil {
			return dir, nil
		}
	}
	const dir = "/sys/kernel/tracing"
	if err := unix.Mount("tracefs", dir, "tracefs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return "", fmt.Errorf("mounting tracefs on %s (the kernel needs TRACING): %w", dir, err)
	}
	return dir, nil
}
