package logwrites

import (
	"fmt"
	"io"
	"slices"
)

// A State is what the device holds after a prefix of the log: a power cut
// right after entry Applied-1 leaves the device so, as far as the order in
// which the log saw the writes complete goes.
type State struct {
	Applied int    // entries replayed: the log's first Applied entries
	Point   string // why it is a state: flush, fua, mark, write
	// N numbers the state in its Space, from 1: the key its result is
	// kept by.
	N int
	// Beyond is what a device model's state holds beyond the prefix;
	// nil for a prefix state.
	Beyond *Beyond
}

// Marks is the number of entries whose marks count in the state: those
// before the crash.
func (s State) Marks() int {
	if s.Beyond != nil {
		return s.Beyond.At
	}
	return s.Applied
}

// Points selects the crash points of a log.
type Points struct {
	Flush, FUA, Marks bool
	// EveryWrite, when above 0, adds a state after every so many data
	// writes between the other points.
	EveryWrite int
	// From is the first entry that may end a state: states before it
	// (the filesystem's creation) are not crash states of the workload.
	From int
}

// States lists the log's crash states in replay order, one per prefix.
func (l *Log) States(p Points) []State {
	var out []State
	writes := 0
	var o orderingFlush
	for _, e := range l.Entries {
		ordering := o.is(e)
		if e.Index < p.From {
			continue
		}
		point := ""
		if e.HasData() {
			writes++
		}
		switch {
		case e.IsMark() && (e.Mark == EndMark || e.Mark == OrderMark), ordering:
			// The teardown's mark: the state before it is the last
			// write's, already there when that was a point. The
			// recorder's flush, and its mark, are none of the
			// filesystem's.
		case e.FUA() && p.FUA:
			point = "fua"
		case e.Flush() && p.Flush:
			point = "flush"
		case e.IsMark() && p.Marks:
			point = "mark"
		case e.HasData() && p.EveryWrite > 0 && writes%p.EveryWrite == 0:
			point = "write"
		}
		if point != "" {
			out = append(out, State{Applied: e.Index + 1, Point: point})
		}
	}
	return out
}

// Replayer writes a log's entries onto a device in order, from an empty
// start; it goes forward only.
type Replayer struct {
	log  *Log
	dev  io.WriterAt
	next int
	buf  []byte
	// Skip holds entries not to replay: a negative control drops one to
	// prove the checks see it.
	Skip map[int]bool
	// Written counts the bytes written to the device.
	Written int64
}

// NewReplayer replays l onto dev, which must hold what the logged device
// held when the log began (the runner zeroes both).
func NewReplayer(l *Log, dev io.WriterAt) *Replayer {
	return &Replayer{log: l, dev: dev}
}

// Applied is the number of entries replayed so far.
func (r *Replayer) Applied() int { return r.next }

// To replays entries up to, not including, entry n. A discard is replayed
// as zeros: what a device that zeroes discarded blocks returns, and the
// worst case for data that a filesystem still needs. A device with a Sync
// method is synced at the end.
func (r *Replayer) To(n int) error {
	if n < r.next || n > len(r.log.Entries) {
		return fmt.Errorf("replay to entry %d: already at %d of %d", n, r.next, len(r.log.Entries))
	}
	ss := r.log.SectorSize
	for ; r.next < n; r.next++ {
		e := r.log.Entries[r.next]
		if r.Skip[e.Index] {
			continue
		}
		switch {
		case e.HasData():
			var err error
			if r.buf, err = r.log.Data(e, r.buf); err != nil {
				return err
			}
			if _, err := r.dev.WriteAt(r.buf, int64(e.Sector)*ss); err != nil {
				return fmt.Errorf("replaying write log entry %d: %w", e.Index, err)
			}
			r.Written += int64(len(r.buf))
		case e.Discard():
			if err := r.zero(int64(e.Sector)*ss, int64(e.Sectors)*ss); err != nil {
				return fmt.Errorf("replaying discard %d: %w", e.Index, err)
			}
		}
	}
	if s, ok := r.dev.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			return fmt.Errorf("syncing the replayed device: %w", err)
		}
	}
	return nil
}

// Zeroer is a device that zeroes a range by itself (a hole punched in a
// file, BLKZEROOUT on a block device), faster than writing zeros and,
// in a file, without taking the space.
type Zeroer interface {
	ZeroRange(off, n int64) error
}

func (r *Replayer) zero(off, n int64) error {
	if z, ok := r.dev.(Zeroer); ok {
		if err := z.ZeroRange(off, n); err != nil {
			return err
		}
		r.Written += n
		return nil
	}
	zero := make([]byte, min(n, 1<<20))
	for n > 0 {
		k := min(n, int64(len(zero)))
		if _, err := r.dev.WriteAt(zero[:k], off); err != nil {
			return err
		}
		off, n = off+k, n-k
		r.Written += k
	}
	return nil
}

// Beyond writes what st holds beyond its prefix onto dev, which holds
// the replay of its first st.Applied entries: the entries after them up
// to Upto that persisted, in log order, without the dropped ones and
// with only the kept units of a torn one.
func (r *Replayer) Beyond(st State, dev io.WriterAt) error {
	b := st.Beyond
	if b == nil {
		return nil
	}
	ss := r.log.SectorSize
	for i := st.Applied; i < b.Upto; i++ {
		e := r.log.Entries[i]
		if r.Skip[i] || slices.Contains(b.Drop, i) || !(e.HasData() || e.Discard()) {
			continue
		}
		off := int64(e.Sector) * ss
		if e.Discard() {
			if err := (&Replayer{log: r.log, dev: dev}).zero(off, int64(e.Sectors)*ss); err != nil {
				return err
			}
			continue
		}
		var err error
		if r.buf, err = r.log.Data(e, r.buf); err != nil {
			return err
		}
		if err := writeKept(dev, r.buf, off, i == b.Torn, b); err != nil {
			return fmt.Errorf("writing entry %d beyond the prefix: %w", i, err)
		}
	}
	if s, ok := dev.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// writeKept writes data at off, or for the torn entry only its kept
// units.
func writeKept(dev io.WriterAt, data []byte, off int64, torn bool, b *Beyond) error {
	if !torn {
		_, err := dev.WriteAt(data, off)
		return err
	}
	for from := int64(0); from < int64(len(data)); from += b.Unit {
		if u := from / b.Unit; b.Keep[u/64]&(1<<(u%64)) != 0 {
			if _, err := dev.WriteAt(data[from:min(from+b.Unit, int64(len(data)))], off+from); err != nil {
				return err
			}
		}
	}
	return nil
}
