package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// TestCrashStateExportsAModelState: crash-state rebuilds a device model's
// state named as a result names it, says what it holds, and refuses a
// state the log does not have.
func TestCrashStateExportsAModelState(t *testing.T) {
	testenv.Tool(t, "sfdisk")
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'M', 2, 0)
	b.Flush()
	b.Mark(logwrites.FSMark)
	b.Write(8, 'a', 4, logwrites.FlagFUA)
	b.Mark(logwrites.EndMark)
	dir := t.TempDir()
	disk := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(disk, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(disk, 4<<20); err != nil {
		t.Fatal(err)
	}
	testenv.Run(t, "label: gpt\nstart=2048, size=2048, name=crash\nstart=4096, size=2048, name=crashlog\n", "sfdisk", "--no-reread", "--no-tell-kernel", "-q", disk)
	f, err := os.OpenFile(disk, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b.Bytes(), 4096*512); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "state.img")
	code, stdout, stderr := runMain(t, "crash-state", "-log", "crashlog", "-on", "crash", "-state", "3+4~3:512:4:3", "-o", out, disk)
	if code != ExitOK || !strings.Contains(stdout, "then entries #3 to #3 as the device model keeps them (torn: #3 kept 1100") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	img, err := os.ReadFile(out)
	if err != nil || len(img) != 1<<20 || img[8*512] != 'a' || img[9*512] != 'a' || img[10*512] != 0 || img[0] != 'M' {
		t.Errorf("the torn state's image is not the prefix and two sectors of the torn write (%v)", err)
	}
	if code, _, stderr := runMain(t, "crash-state", "-log", "crashlog", "-on", "crash", "-state", "3+9", "-o", out, disk); code == ExitOK || !strings.Contains(stderr, "last entry") {
		t.Errorf("a state past the log: exit %d, %s", code, stderr)
	}
}
