package debpkg

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
)

// TestAnswersKept asks apt twice through a cache directory: the second
// answer comes from the kept one (a planted answer is returned), and
// without a cache directory apt is asked again.
func TestAnswersKept(t *testing.T) {
	da := hostArch(t)
	ctx := context.Background()
	cache := t.TempDir()
	names := []string{"zlib1g:" + da, "libc6:" + da}
	first, err := ShowMany(ctx, cache, names)
	if err != nil {
		t.Fatal(err)
	}
	if first["zlib1g"]["Version"] == "" || first["libc6"]["Version"] == "" {
		t.Fatalf("ShowMany = %v", first)
	}
	kept, err := filepath.Glob(filepath.Join(cache, answersDir, "*", "*"))
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept answers %v (%v), want one", kept, err)
	}
	planted := "Package: zlib1g\nVersion: 99:planted\nArchitecture: " + da + "\n\nPackage: libc6\nVersion: 99:planted\n\n"
	if err := os.WriteFile(kept[0], []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := ShowMany(ctx, cache, names)
	if err != nil {
		t.Fatal(err)
	}
	if again["zlib1g"]["Version"] != "99:planted" {
		t.Errorf("second answer %v, want the kept one", again["zlib1g"])
	}
	// Another question is another answer.
	log := logrus.New()
	log.Out = io.Discard
	z, err := Show(ctx, log, cache, "zlib1g:"+da)
	if err != nil || z["Version"] != first["zlib1g"]["Version"] {
		t.Errorf("Show zlib1g = %v, %v; want version %s", z, err, first["zlib1g"]["Version"])
	}
	if fresh, err := ShowMany(ctx, "", names); err != nil || fresh["zlib1g"]["Version"] != first["zlib1g"]["Version"] {
		t.Errorf("without a cache: %v, %v", fresh["zlib1g"], err)
	}
}

// TestStateDigest: the digest of apt's state changes with its
// configuration and with the name, size or time of any file it reads,
// and stays put otherwise.
func TestStateDigest(t *testing.T) {
	dir := t.TempDir()
	lists, status := filepath.Join(dir, "lists"), filepath.Join(dir, "status")
	if err := os.Mkdir(lists, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(lists, "a_Packages"), "Package: a\n")
	write(filepath.Join(lists, "lock"), "")
	write(status, "Package: b\n")
	digest := func(config string) string {
		t.Helper()
		d, err := stateDigest([]byte(config), []string{status, filepath.Join(dir, "preferences")}, []string{lists, filepath.Join(dir, "preferences.d")})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest("APT::Architecture \"amd64\";")
	if again := digest("APT::Architecture \"amd64\";"); again != base {
		t.Fatalf("same state, digests %s and %s", base, again)
	}
	seen := map[string]string{base: "base"}
	check := func(what, d string) {
		t.Helper()
		if prev, ok := seen[d]; ok {
			t.Errorf("%s: digest %s as after %s", what, d, prev)
		}
		seen[d] = what
	}
	check("another configuration", digest("APT::Architecture \"arm64\";"))
	write(filepath.Join(lists, "a_Packages"), "Package: a\nVersion: 2\n")
	check("a list grew", digest("APT::Architecture \"amd64\";"))
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(lists, "a_Packages"), later, later); err != nil {
		t.Fatal(err)
	}
	check("a list's time", digest("APT::Architecture \"amd64\";"))
	write(filepath.Join(lists, "b_Packages"), "")
	check("a new list", digest("APT::Architecture \"amd64\";"))
	write(filepath.Join(dir, "preferences"), "Package: *\nPin: release a=stable\nPin-Priority: 900\n")
	check("a pin file", digest("APT::Architecture \"amd64\";"))
	write(status, "Package: b\nStatus: install ok installed\n")
	check("installed packages", digest("APT::Architecture \"amd64\";"))
	now := digest("APT::Architecture \"amd64\";")
	write(filepath.Join(lists, "lock"), "locked")
	if d := digest("APT::Architecture \"amd64\";"); d != now {
		t.Errorf("apt's lock file changed the digest")
	}
}

// TestAnswersOfOldStatesRemoved: keeping an answer for a new state
// removes those of every other state.
func TestAnswersOfOldStatesRemoved(t *testing.T) {
	cache := t.TempDir()
	old := filepath.Join(cache, answersDir, "old")
	if err := keepAnswer(old, filepath.Join(old, "q"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	cur := filepath.Join(cache, answersDir, "new")
	if err := keepAnswer(cur, filepath.Join(cur, "q"), []byte("b")); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(cache, answersDir))
	if err != nil || len(entries) != 1 || entries[0].Name() != "new" {
		t.Errorf("states left: %v (%v)", entries, err)
	}
	if b, err := os.ReadFile(filepath.Join(cur, "q")); err != nil || string(b) != "b" {
		t.Errorf("kept answer %q (%v)", b, err)
	}
}

func TestShellValues(t *testing.T) {
	got, err := shellValues([]byte("LISTS='/var/lib/apt/lists/'\nODD='/it'\\''s/'\n"))
	if err != nil || got["LISTS"] != "/var/lib/apt/lists/" || got["ODD"] != "/it's/" {
		t.Errorf("shellValues = %v, %v", got, err)
	}
	if _, err := shellValues([]byte("LISTS=/unquoted\n")); err == nil {
		t.Error("an unquoted value was accepted")
	}
}
