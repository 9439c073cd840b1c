package digest

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// settled writes files whose last change is older than the racy window,
// which the test shortens: the cache may keep their digests.
func settled(t *testing.T, files map[string]string) string {
	t.Helper()
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond) // past any timestamp tick
	return dir
}

// loaded opens the cache at store and reads it, as its first lookup would.
func loaded(store string) *Cache {
	c := OpenCache(store)
	c.load.Do(c.read)
	return c
}

func mustFile(t *testing.T, c *Cache, path string) string {
	t.Helper()
	sum, err := c.File(path)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := File(path); sum != want {
		t.Fatalf("cached digest of %s = %s, the file's is %s", path, sum, want)
	}
	return sum
}

// TestCacheKeepsAndReuses: a saved cache gives the digest of an unchanged
// file without reading it (a planted sum shows it was not read), and
// reads a file again once its contents changed, even with its size and
// mtime put back.
func TestCacheKeepsAndReuses(t *testing.T) {
	dir := settled(t, map[string]string{"a": "alpha", "b": "bravo"})
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	store := filepath.Join(t.TempDir(), "cache", "digests")
	c := OpenCache(store)
	mustFile(t, c, a)
	mustFile(t, c, b)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}

	c = loaded(store)
	if len(c.old) != 2 {
		t.Fatalf("the saved cache holds %d entries, want 2", len(c.old))
	}
	for id, e := range c.old {
		e.sum[0] ^= 0xff
		c.old[id] = e
	}
	want, _ := File(a)
	if got, _ := c.File(a); got == want {
		t.Fatal("an unchanged file was read again instead of taken from the cache")
	}

	fi, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("BRAVO"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(b, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	mustFile(t, c, b) // the planted sum would fail it
}

// TestCacheSkipsRacyFiles: a file changed within the racy window is
// digested but not kept, since a change in the same clock tick would not
// show in its ctime.
func TestCacheSkipsRacyFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fresh")
	if err := os.WriteFile(p, []byte("just written"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := OpenCache(filepath.Join(dir, "digests"))
	mustFile(t, c, p)
	if len(c.used) != 0 {
		t.Errorf("a file changed %s ago or less was kept", racyWindow)
	}
}

// TestCacheIgnoresDamage: a torn, flipped or foreign cache file is an
// empty cache, never a wrong digest; a nil cache digests every file.
func TestCacheIgnoresDamage(t *testing.T) {
	dir := settled(t, map[string]string{"a": "alpha"})
	a := filepath.Join(dir, "a")
	store := filepath.Join(t.TempDir(), "digests")
	c := OpenCache(store)
	mustFile(t, c, a)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded(store).old) != 1 {
		t.Fatal("the saved cache does not load")
	}
	flipped := append([]byte(nil), good...)
	flipped[len(cacheMagic)+50] ^= 1 // inside the entry's digest
	for name, data := range map[string][]byte{
		"torn":    good[:len(good)-5],
		"flipped": flipped,
		"foreign": append([]byte("fsbench digest cache 0\n"), good[len(cacheMagic)-1:]...),
		"empty":   nil,
	} {
		if err := os.WriteFile(store, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := loaded(store)
		if len(c.old) != 0 {
			t.Errorf("%s cache file: loaded %d entries", name, len(c.old))
		}
		mustFile(t, c, a)
	}
	var none *Cache
	mustFile(t, none, a)
	if err := none.Save(); err != nil {
		t.Errorf("Save on a nil cache: %v", err)
	}
}
