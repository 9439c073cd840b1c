package crash

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/workload"
)

// The reliability recipes write files whose every byte can be recomputed
// from the file's name and a salt, and keep, outside the filesystem under
// test, a log of what was synced. After the power cut or the fault, the
// data check reads every file back and sorts what it finds:
//
//	Intact        every byte written is there
//	LostUnsynced  data that was never synced is missing, cut short or
//	              reads as zeros: allowed by POSIX, and what a power cut
//	              does
//	LostSynced    data that fsync (or sync) had reported durable is
//	              missing, cut short or reads as zeros
//	Corrupt       bytes that were never written appear, or reading fails
//	              (a checksumming filesystem refusing a damaged block)
//
// The worst class found is the iteration's data class.

// Data classes, from best to worst.
const (
	DataIntact       = "Intact"
	DataLostUnsynced = "LostUnsynced"
	DataLostSynced   = "LostSynced"
	DataCorrupt      = "Corrupt"
	// DataNoFault: no I/O met the fault, nothing was put to the test.
	DataNoFault = "NoFault"
)

var dataRank = map[string]int{DataIntact: 0, DataLostUnsynced: 1, DataLostSynced: 2, DataCorrupt: 3}

// worseData returns the worse of two data classes.
func worseData(a, b string) string {
	if dataRank[b] > dataRank[a] {
		return b
	}
	return a
}

// SyncLog is an append-only log of the bytes of each file known durable:
// one line "name size" per sync, fdatasync'ed before the writer goes on,
// so it never claims more than was synced. It lives outside the
// filesystem under test (in the runner's state directory). A line the cut
// tore is not complete and does not count.
type SyncLog struct {
	f *os.File
}

// CreateSyncLog creates the sync log at path, empty.
func CreateSyncLog(path string) (*SyncLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return &SyncLog{f: f}, nil
}

// synced records that the first size bytes of name are durable.
func (l *SyncLog) Synced(name string, size int64) error {
	if _, err := fmt.Fprintf(l.f, "%s %d\n", name, size); err != nil {
		return err
	}
	return unix.Fdatasync(int(l.f.Fd()))
}

// Close closes the log.
func (l *SyncLog) Close() error { return l.f.Close() }

// ReadSyncLog returns the synced size of each file in the log; a torn last
// line is ignored.
func ReadSyncLog(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for len(b) > 0 {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		if !complete {
			break
		}
		b = rest
		name, size, ok := strings.Cut(string(line), " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		out[name] = max(out[name], n)
	}
	return out, nil
}

// DataReport is what the data check found.
type DataReport struct {
	Class         string
	Files         int   // files found
	SyncedFiles   int   // files the log names
	SyncedBytes   int64 // bytes the log names
	LostSynced    int64 // synced bytes missing or zeroed
	LostUnsynced  int   // files with unsynced data missing
	CorruptFiles  int
	ReadErrors    int
	MissingSynced int // synced files not found at all
	Problems      []string
}

func (r *DataReport) problem(format string, args ...any) {
	if len(r.Problems) < 8 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// CheckData compares the files in dir with their pattern and the sync
// log. intended gives the size a file was meant to reach (0: unknown),
// so that a file longer than it is caught.
func CheckData(dir string, pat workload.Pattern, synced map[string]int64, intended func(name string) int64) (*DataReport, error) {
	rep := &DataReport{Class: DataIntact, SyncedFiles: len(synced)}
	found := map[string]bool{}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// The directory itself is unreadable: whatever was synced in it
		// is lost to the user.
		rep.ReadErrors++
		rep.Class = DataCorrupt
		rep.problem("reading %s: %v", dir, err)
		return rep, nil
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		rep.Files++
		found[e.Name()] = true
		checkFile(rep, filepath.Join(dir, e.Name()), pat, synced[e.Name()], intended(e.Name()))
	}
	var names []string
	for n := range synced {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rep.SyncedBytes += synced[n]
		if !found[n] && synced[n] > 0 {
			rep.MissingSynced++
			rep.LostSynced += synced[n]
			rep.Class = worseData(rep.Class, DataLostSynced)
			rep.problem("%s: synced (%d bytes) but missing", n, synced[n])
		}
	}
	return rep, nil
}

// checkFile reads one file and compares it, block by block, with its
// pattern: the first synced bytes must be exact; after them a block may
// be exact or all zeros (unsynced data not yet written), and the file may
// end early.
func checkFile(rep *DataReport, path string, pat workload.Pattern, synced, intended int64) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		rep.ReadErrors++
		rep.Class = worseData(rep.Class, DataCorrupt)
		rep.problem("%s: %v", name, err)
		return
	}
	defer f.Close()
	want := pat.Expected(name)
	const block = 4096
	// Large reads, compared a block at a time: crash_states reads the
	// same files at every state, and under emulation every system call
	// counts.
	buf := make([]byte, 64*block)
	var off int64
	lostSynced, lostUnsynced, corrupt := int64(0), false, false
	for {
		n, err := io.ReadFull(f, buf)
		exp := want.At(off, n)
		for b := 0; b < n; b += block {
			got, exp := buf[b:min(b+block, n)], exp[b:min(b+block, n)]
			at := off + int64(b)
			for i := 0; i < len(got); {
				// Compare in runs up to the synced boundary, so a
				// zeroed block straddling it is counted on each side.
				end := len(got)
				if d := synced - at - int64(i); d > 0 && d < int64(len(got)-i) {
					end = i + int(d)
				}
				g, w := got[i:end], exp[i:end]
				inSynced := at+int64(i) < synced
				switch {
				case bytes.Equal(g, w):
				case allZero(g) && inSynced:
					lostSynced += int64(len(g))
				case allZero(g):
					lostUnsynced = true
				default:
					corrupt = true
				}
				i = end
			}
		}
		off += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			rep.ReadErrors++
			corrupt = true
			rep.problem("%s: read at %d: %v", name, off, err)
			break
		}
	}
	if off < synced {
		lostSynced += synced - off
	}
	if intended > 0 && off < intended {
		lostUnsynced = lostUnsynced || off >= synced
	}
	if intended > 0 && off > intended {
		corrupt = true
		rep.problem("%s: %d bytes, longer than the %d written", name, off, intended)
	}
	switch {
	case corrupt:
		rep.CorruptFiles++
		rep.Class = worseData(rep.Class, DataCorrupt)
		rep.problem("%s: bytes that were never written", name)
	case lostSynced > 0:
		rep.LostSynced += lostSynced
		rep.Class = worseData(rep.Class, DataLostSynced)
		rep.problem("%s: %d synced bytes lost", name, lostSynced)
	case lostUnsynced:
		rep.LostUnsynced++
		rep.Class = worseData(rep.Class, DataLostUnsynced)
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Record adds the report to an outcome.
func (r *DataReport) Record(out *step.Outcome) {
	out.Attr("data", r.Class)
	out.Metric("files_found", float64(r.Files), "")
	out.Metric("files_synced", float64(r.SyncedFiles), "")
	out.Metric("synced_bytes", float64(r.SyncedBytes), "bytes")
	out.Metric("lost_synced_bytes", float64(r.LostSynced), "bytes")
	out.Metric("missing_synced_files", float64(r.MissingSynced), "")
	out.Metric("files_lost_unsynced", float64(r.LostUnsynced), "")
	out.Metric("corrupt_files", float64(r.CorruptFiles), "")
	out.Metric("read_errors", float64(r.ReadErrors), "")
	if len(r.Problems) > 0 {
		out.Attr("data_problems", strings.Join(r.Problems, "; "))
	}
}
