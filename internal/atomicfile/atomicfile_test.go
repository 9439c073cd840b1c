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

// TestCommitAll: files synced early or not all reach their paths; a file
// that cannot be renamed stops the ones after it, whose temporary files
// go, and leaves the ones before it.
func TestCommitAll(t *testing.T) {
	dir := t.TempDir()
	create := func(name, data string) *File {
		t.Helper()
		f, err := Create(filepath.Join(dir, name), 0o640)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		return f
	}
	a, b := create("a", "early"), create("b", "late")
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := CommitAll(a, b); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a": "early", "b": "late"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		fi, _ := os.Stat(filepath.Join(dir, name))
		if err != nil || string(data) != want || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: %q %v (%v), want %q 0640", name, data, fi.Mode(), err, want)
		}
	}
	assertOnly(t, dir, "a", "b")

	if err := os.Mkdir(filepath.Join(dir, "busy"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "busy", "x"), nil, 0o644) // a rename cannot replace it
	c, busy, d := create("c", "c"), create("busy", "x"), create("d", "d")
	if err := CommitAll(c, busy, d); err == nil {
		t.Fatal("CommitAll renamed a file over a directory")
	}
	assertOnly(t, dir, "a", "b", "busy", "c")
}
