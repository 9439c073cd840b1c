package crashstate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// disk makes a GPT disk image with sfdisk: partition 1 "crash" (1MiB),
// partition 2 "crashlog" (1MiB) holding log.
func disk(t *testing.T, log []byte) string {
	t.Helper()
	testenv.Tool(t, "sfdisk")
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 4<<20); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sfdisk", "--no-reread", "--no-tell-kernel", "-q", path)
	cmd.Stdin = strings.NewReader("label: gpt\nstart=2048, size=2048, name=crash\nstart=4096, size=2048, name=crashlog\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sfdisk: %v: %s", err, out)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(log, 4096*512); err != nil {
		t.Fatal(err)
	}
	return path
}

func sampleLog() []byte {
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'M', 2, 0)
	b.Flush()
	b.Mark(logwrites.FSMark)
	b.Write(8, 'a', 1, 0)
	b.Flush()
	b.Mark("fsb:s:append.log:4096")
	b.Write(9, 'b', 2, logwrites.FlagFUA)
	b.Mark(logwrites.EndMark)
	return b.Bytes()
}

func TestExportRebuildsAState(t *testing.T) {
	path := disk(t, sampleLog())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Open(f, 4<<20, 512, "crash", "2")
	if err != nil {
		t.Fatal(err)
	}
	states := d.States()
	if len(states) != 3 || states[0].Applied != 5 || states[1].LastMark != "fsb:s:append.log:4096" || states[2].Point != "fua" {
		t.Fatalf("states %+v", states)
	}
	out := filepath.Join(t.TempDir(), "state.img")
	if err := d.Export(out, "5"); err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 1<<20)
	copy(want, bytes.Repeat([]byte{'M'}, 1024))
	copy(want[8*512:], bytes.Repeat([]byte{'a'}, 512))
	if !bytes.Equal(img, want) {
		t.Errorf("the state after 5 entries is not the mkfs write and the first append")
	}
	if err := d.Export(out, "99"); err == nil {
		t.Error("a state past the log's end was exported")
	}
	// A device model's state: the FUA write torn, its first sector kept.
	if err := d.Export(out, "5+7~6:512:2:1"); err != nil {
		t.Fatal(err)
	}
	img, _ = os.ReadFile(out)
	copy(want[9*512:], bytes.Repeat([]byte{'b'}, 512))
	if !bytes.Equal(img, want) {
		t.Errorf("the torn state is not the prefix and the torn write's first sector")
	}
}

// TestExportUpdateStateAsADisk: an update test's state is the whole disk
// with its partitions (here two, recorded as one device) as the state
// leaves them, zeros included, and every other byte of the disk as it
// was.
func TestExportUpdateStateAsADisk(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'x', 2, 0)    // partition a
	b.Write(2048, 'y', 1, 0) // partition b
	b.Flush()
	b.Mark(logwrites.EndMark)
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 6<<20); err != nil {
		t.Fatal(err)
	}
	testenv.Run(t, "label: gpt\nstart=2048, size=2048, name=a\nstart=4096, size=2048, name=b\nstart=6144, size=2048, name=log\nstart=8192, size=2048, name=other\n",
		"sfdisk", "--no-reread", "--no-tell-kernel", "-q", path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := bytes.Repeat([]byte{'J'}, 2<<20) // what the run left in a and b
	other := bytes.Repeat([]byte{'O'}, 1<<20)
	for _, w := range []struct {
		data []byte
		at   int64
	}{{junk, 1 << 20}, {b.Bytes(), 3 << 20}, {other, 4 << 20}} {
		if _, err := f.WriteAt(w.data, w.at); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Open(f, 6<<20, 512, "a,b", "log")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "state.img")
	if err := d.Export(out, "1"); err != nil {
		t.Fatal(err)
	}
	img, err := os.ReadFile(out)
	if err != nil || len(img) != 6<<20 {
		t.Fatalf("%d bytes: %v", len(img), err)
	}
	want := make([]byte, 2<<20)
	copy(want, bytes.Repeat([]byte{'x'}, 1024))
	if !bytes.Equal(img[1<<20:3<<20], want) {
		t.Error("partitions a and b are not the state after the first write")
	}
	if !bytes.Equal(img[4<<20:5<<20], other) {
		t.Error("a partition outside the update changed")
	}
	if err := d.Export(out, "3"); err != nil {
		t.Fatal(err)
	}
	img, _ = os.ReadFile(out)
	copy(want[1<<20:], []byte(strings.Repeat("y", 512)))
	if !bytes.Equal(img[1<<20:3<<20], want) {
		t.Error("partition b lacks the second write")
	}
}

func TestOpenSaysWhatIsWrong(t *testing.T) {
	log := sampleLog()
	log[512*4+40] = 1 // dirty padding in the flush's header (after the super and a 2-sector write)
	path := disk(t, log)
	f, _ := os.Open(path)
	defer f.Close()
	if _, err := Open(f, 4<<20, 512, "crash", "crashlog"); err == nil || !strings.Contains(err.Error(), "padding") {
		t.Errorf("a corrupt log: %v", err)
	}
	if _, err := Open(f, 4<<20, 512, "crash", "craslog"); err == nil || !strings.Contains(err.Error(), `1 (crash), 2 (crashlog)`) {
		t.Errorf("a wrong name: %v", err)
	}
}
