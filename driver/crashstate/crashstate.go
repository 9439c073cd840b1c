// Package crashstate rebuilds, on the host, the states of a crash_states
// campaign from the write log its last campaign left on a disk (a QEMU
// run's disk image, or a copy of a board's storage), so that a state the
// runner found bad can be looked at with the filesystem's own tools.
package crashstate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/parttable"
)

// Disk is a disk holding a campaign's log.
type Disk struct {
	Log       *logwrites.Log
	Partition parttable.Partition // the tested partition, when named
	// Medium is an update test's partitions in the order its runner
	// recorded them as one device (the data partition, slot A, slot B,
	// the environment's): a state of the log is all of them.
	Medium []parttable.Partition
	r      io.ReaderAt
	size   int64
}

// Open reads the partition table of the disk r of size bytes and the write
// log on its partition logName; on, when not empty, names the partition
// the campaign tested, or for an update test its partitions, comma-
// separated, in the order of the test's on, slot_a, slot_b and env.
// Partitions are named by GPT name or number.
func Open(r io.ReaderAt, size int64, sectorSize int, on, logName string) (*Disk, error) {
	table, err := parttable.ReadTable(r, size, sectorSize)
	if err != nil {
		return nil, fmt.Errorf("reading its partition table: %w", err)
	}
	logp, err := find(table, logName)
	if err != nil {
		return nil, err
	}
	d := &Disk{r: r, size: size}
	var devSize int64
	if on != "" {
		for _, name := range strings.Split(on, ",") {
			p, err := find(table, name)
			if err != nil {
				return nil, err
			}
			d.Medium = append(d.Medium, p)
			devSize += p.Size
		}
		d.Partition = d.Medium[0]
		if len(d.Medium) == 1 {
			d.Medium = nil
		}
	}
	d.Log, err = logwrites.Open(io.NewSectionReader(r, logp.Start, logp.Size), logp.Size, devSize)
	if err != nil {
		return nil, fmt.Errorf("the write log on partition %d: %w", logp.Number, err)
	}
	return d, nil
}

// State is one crash state with what led to it.
type State struct {
	logwrites.State
	Last     logwrites.Entry // the log's last entry in the state
	LastMark string          // the workload's last mark before it
}

// States lists the states after the filesystem's creation: every flush,
// FUA write and mark.
func (d *Disk) States() []State {
	from := 0
	if at := d.Log.FindMark(logwrites.FSMark); at >= 0 {
		from = at + 1
	}
	var out []State
	last, next := "", 0
	for _, s := range d.Log.States(logwrites.Points{Flush: true, FUA: true, Marks: true, From: from}) {
		for ; next < s.Applied; next++ {
			if e := d.Log.Entries[next]; e.IsMark() && e.Mark != logwrites.EndMark {
				last = e.Mark
			}
		}
		out = append(out, State{State: s, Last: d.Log.Entries[s.Applied-1], LastMark: last})
	}
	return out
}

// Export writes the state named by code (logwrites.State.Code: a
// number of entries replayed, or a device model's state as a result
// lists it) at path, replaced whole, never left half written: the tested
// partition's image, or for an update test's partitions a copy of the
// whole disk with each of them as the state leaves it, which boots as
// the board would after that power cut.
func (d *Disk) Export(path, code string) error {
	if d.Partition.Size == 0 {
		return fmt.Errorf("no tested partition named")
	}
	st, err := logwrites.ParseState(code, len(d.Log.Entries))
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if d.Medium == nil {
		if err := d.replay(f.File, st); err != nil {
			return err
		}
		return f.Commit()
	}
	medium, err := os.CreateTemp(filepath.Dir(path), ".medium-*")
	if err != nil {
		return err
	}
	defer os.Remove(medium.Name())
	defer medium.Close()
	if err := d.replay(medium, st); err != nil {
		return err
	}
	if err := copyRange(f.File, d.r, 0, 0, d.size, true); err != nil {
		return err
	}
	var at int64
	for _, p := range d.Medium {
		if err := copyRange(f.File, medium, p.Start, at, p.Size, false); err != nil {
			return err
		}
		at += p.Size
	}
	return f.Commit()
}

// replay writes the state onto dev: the runner zeroed the recorded
// device before the log began, and a sparse file of its size is that
// start.
func (d *Disk) replay(dev *os.File, st logwrites.State) error {
	size := d.Partition.Size
	if d.Medium != nil {
		size = 0
		for _, p := range d.Medium {
			size += p.Size
		}
	}
	if err := dev.Truncate(size); err != nil {
		return err
	}
	rp := logwrites.NewReplayer(d.Log, dev)
	if err := rp.To(st.Applied); err != nil {
		return err
	}
	return rp.Beyond(st, dev)
}

// copyRange copies n bytes of src from srcOff to dst at dstOff; into a
// new file (holes), its blocks of zeros are left unwritten.
func copyRange(dst *os.File, src io.ReaderAt, dstOff, srcOff, n int64, holes bool) error {
	buf := make([]byte, 1<<20)
	for done := int64(0); done < n; {
		k := min(int64(len(buf)), n-done)
		if _, err := src.ReadAt(buf[:k], srcOff+done); err != nil && err != io.EOF {
			return err
		}
		for b := int64(0); b < k; b += 4096 {
			blk := buf[b:min(b+4096, k)]
			if !holes || !allZero(blk) {
				if _, err := dst.WriteAt(blk, dstOff+done+b); err != nil {
					return err
				}
			}
		}
		done += k
	}
	// A region ending in zeros must still end where it ends.
	if fi, err := dst.Stat(); err != nil {
		return err
	} else if fi.Size() < dstOff+n {
		return dst.Truncate(dstOff + n)
	}
	return nil
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// find finds a partition by its GPT name or its number.
func find(t *parttable.Table, name string) (parttable.Partition, error) {
	n, numErr := strconv.Atoi(name)
	var names []string
	for _, p := range t.Partitions {
		if (numErr == nil && p.Number == n) || (p.Label != "" && p.Label == name) {
			return p, nil
		}
		desc := strconv.Itoa(p.Number)
		if p.Label != "" {
			desc += " (" + p.Label + ")"
		}
		names = append(names, desc)
	}
	return parttable.Partition{}, fmt.Errorf("no partition %q; the disk has %s", name, strings.Join(names, ", "))
}
