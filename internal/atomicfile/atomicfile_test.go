package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("old"), 0o600)
	if err := WriteFile(p, []byte("new contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "new contents" || fi.Mode().Perm() != 0o644 {
		t.Errorf("got %q mode %v", b, fi.Mode())
	}
	assertOnly(t, dir, "f")
}

// TestAbortKeepsTheOldFile: an interrupted write leaves the old file and
// no temporary file.
func TestAbortKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "img")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half of the new"))
	f.Abort()
	f.Abort() // twice is harmless
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("old file changed to %q", b)
	}
	assertOnly(t, dir, "img")
}

func TestCommitThenAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	f, _ := Create(p, 0o600)
	f.Write([]byte("data"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // deferred after a commit: must not remove the result
	if b, _ := os.ReadFile(p); string(b) != "data" {
		t.Errorf("committed file = %q", b)
	}
	assertOnly(t, dir, "x")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(names) {
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		t.Errorf("directory holds %v, want %v", got, names)
	}
}
