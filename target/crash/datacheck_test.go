package crash

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsbench/fsbench/target/workload"
)

// writeSet writes n small files of size bytes into a fresh directory with
// the dm_flakey writer and returns it and its sync log.
func writeSet(t *testing.T, n int, size int64) (*workload.Writer, map[string]int64) {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "synced.log")
	log, err := CreateSyncLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	w := &workload.Writer{Dir: data, Pattern: workload.Pattern{Salt: "test"}, Log: log, Kind: "small_files", Small: size, Count: n}
	if err := w.Once(context.Background()); err != nil || w.Err != nil {
		t.Fatal(err, w.Err)
	}
	log.Close()
	synced, err := ReadSyncLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(synced) != n {
		t.Fatalf("sync log names %d files, want %d", len(synced), n)
	}
	return w, synced
}

func check(t *testing.T, w *workload.Writer, synced map[string]int64) *DataReport {
	t.Helper()
	rep, err := CheckData(w.Dir, w.Pattern, synced, w.Intended)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestDataCheckIntact(t *testing.T) {
	w, synced := writeSet(t, 4, 10000)
	rep := check(t, w, synced)
	if rep.Class != DataIntact || rep.Files != 4 || rep.SyncedBytes != 40000 {
		t.Fatalf("fresh files: %+v", rep)
	}
	// Another salt is another content: nothing may match by chance.
	w.Pattern = workload.Pattern{Salt: "other"}
	if rep := check(t, w, synced); rep.Class != DataCorrupt || rep.CorruptFiles != 4 {
		t.Fatalf("files checked against another pattern: %+v", rep)
	}
}

func TestDataCheckCatchesACorruptedFile(t *testing.T) {
	w, synced := writeSet(t, 4, 10000)
	path := filepath.Join(w.Dir, w.FileName(2))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	f.ReadAt(b, 5000)
	b[0] ^= 0x01 // one bit
	f.WriteAt(b, 5000)
	f.Close()
	rep := check(t, w, synced)
	if rep.Class != DataCorrupt || rep.CorruptFiles != 1 {
		t.Fatalf("one flipped bit: %+v", rep)
	}
}

func TestDataCheckCatchesAMissingSyncedFile(t *testing.T) {
	w, synced := writeSet(t, 4, 10000)
	os.Remove(filepath.Join(w.Dir, w.FileName(3)))
	rep := check(t, w, synced)
	if rep.Class != DataLostSynced || rep.MissingSynced != 1 || rep.LostSynced != 10000 {
		t.Fatalf("synced file removed: %+v", rep)
	}
}

func TestDataCheckLostSyncedData(t *testing.T) {
	for name, damage := range map[string]func(path string){
		"truncated": func(p string) { os.Truncate(p, 3000) },
		"zeroed block": func(p string) {
			f, _ := os.OpenFile(p, os.O_RDWR, 0)
			f.WriteAt(make([]byte, 4096), 4096)
			f.Close()
		},
	} {
		w, synced := writeSet(t, 3, 10000)
		damage(filepath.Join(w.Dir, w.FileName(1)))
		rep := check(t, w, synced)
		if rep.Class != DataLostSynced || rep.LostSynced == 0 {
			t.Errorf("%s synced file: %+v", name, rep)
		}
	}
}

// Data never synced may be lost (cut short, zeros) but not corrupt.
func TestDataCheckUnsyncedData(t *testing.T) {
	w, synced := writeSet(t, 3, 10000)
	delete(synced, w.FileName(3)) // as if the cut came before its sync
	path := filepath.Join(w.Dir, w.FileName(3))
	os.Truncate(path, 6000)
	if rep := check(t, w, synced); rep.Class != DataLostUnsynced || rep.LostUnsynced != 1 {
		t.Fatalf("unsynced file cut short: %+v", rep)
	}
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt([]byte("garbage"), 100)
	f.Close()
	if rep := check(t, w, synced); rep.Class != DataCorrupt {
		t.Fatalf("unsynced file with bytes never written: %+v", rep)
	}
	// Longer than it was ever written: corrupt too.
	w2, synced2 := writeSet(t, 1, 5000)
	f, _ = os.OpenFile(filepath.Join(w2.Dir, w2.FileName(1)), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(make([]byte, 100))
	f.Close()
	if rep := check(t, w2, synced2); rep.Class != DataCorrupt {
		t.Fatalf("file grown past its size: %+v", rep)
	}
}

func TestSyncLogIgnoresATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	os.WriteFile(path, []byte("a 4096\na 8192\nb 100\nb 20"), 0o644)
	got, err := ReadSyncLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if got["a"] != 8192 || got["b"] != 100 || len(got) != 2 {
		t.Fatalf("log read as %v", got)
	}
	os.WriteFile(path, []byte("a x\n"), 0o644)
	if _, err := ReadSyncLog(path); err == nil {
		t.Fatal("a bad complete line was accepted")
	}
}

// The append writer logs every fsynced record; data after the last logged
// size may go, data before it may not.
func TestAppendWriter(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "synced.log")
	log, _ := CreateSyncLog(logPath)
	w := &workload.Writer{Dir: dir, Pattern: workload.Pattern{Salt: "append"}, Log: log, Kind: "fsync"}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := w.UntilCut(ctx); err != context.DeadlineExceeded {
		t.Fatalf("writer ended with %v", err)
	}
	log.Close()
	synced, _ := ReadSyncLog(logPath)
	size := synced[w.FileName(0)]
	if size < 4096 || size != w.Written {
		t.Fatalf("logged %d bytes, wrote %d", size, w.Written)
	}
	os.Remove(logPath)
	path := filepath.Join(dir, w.FileName(0))
	if rep := check(t, w, synced); rep.Class != DataIntact {
		t.Fatalf("appended file: %+v", rep)
	}
	os.Truncate(path, size-4096)
	if rep := check(t, w, synced); rep.Class != DataLostSynced || rep.LostSynced != 4096 {
		t.Fatalf("last synced record lost: %+v", rep)
	}
}
