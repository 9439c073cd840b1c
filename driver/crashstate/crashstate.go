// Package crashstate rebuilds, on the host, the states of a crash_states
// campaign from the write log its last campaign left on a disk (a QEMU
// run's disk image, or a copy of a board's storage), so that a state the
// runner found bad can be looked at with the filesystem's own tools.
package crashstate

import (
	"fmt"
	"io"
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
	r         io.ReaderAt
}

// Open reads the partition table of the disk r of size bytes and the write
// log on its partition logName; on, when not empty, names the partition
// the campaign tested. Partitions are named by GPT name or number.
func Open(r io.ReaderAt, size int64, sectorSize int, on, logName string) (*Disk, error) {
	table, err := parttable.ReadTable(r, size, sectorSize)
	if err != nil {
		return nil, fmt.Errorf("reading its partition table: %w", err)
	}
	logp, err := find(table, logName)
	if err != nil {
		return nil, err
	}
	d := &Disk{r: r}
	if on != "" {
		if d.Partition, err = find(table, on); err != nil {
			return nil, err
		}
	}
	d.Log, err = logwrites.Open(io.NewSectionReader(r, logp.Start, logp.Size), logp.Size, d.Partition.Size)
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

// Export writes the tested partition as the first applied entries of the
// log leave it, as an image at path: replaced whole, never left half
// written.
func (d *Disk) Export(path string, applied int) error {
	if d.Partition.Size == 0 {
		return fmt.Errorf("no tested partition named")
	}
	if applied < 1 || applied > len(d.Log.Entries) {
		return fmt.Errorf("state %d is not one of the log's 1 to %d entries", applied, len(d.Log.Entries))
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	// The runner zeroed the partition before the log began: a sparse
	// file of its size is that start.
	if err := f.Truncate(d.Partition.Size); err != nil {
		return err
	}
	if err := logwrites.NewReplayer(d.Log, f.File).To(applied); err != nil {
		return err
	}
	return f.Commit()
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
