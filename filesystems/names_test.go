package filesystems

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
)

// TestVFATNamesMatchMcopy copies a file of each name with the populate
// step's mcopy and reads the directory back: NameProblem must refuse
// exactly the names that mcopy refuses or stores as another name.
func TestVFATNamesMatchMcopy(t *testing.T) {
	testenv.Tools(t, "mkfs.vfat", "mcopy", "mdir")
	typ, _ := Lookup("vfat")
	for _, name := range []string{
		"a?b", "a*b", `a"b`, "a<b", "a>b", "a|b", `a\b`, "a:b", "a\x01b", "ab.", "ab ", "con", "Nul", "COM1", "lpt4",
		"a+b", "a,b", "a;b", "a=b", "a[b]", " ab", ".ab", "a b", "A.B.C", "com5", "lpt5", "nul.txt", "clock$", "a\x7fb",
	} {
		kept := mcopyKeeps(t, name)
		if problem := typ.NameProblem(name); (problem == "") != kept {
			t.Errorf("%q: mcopy keeps it: %t, NameProblem: %q", name, kept, problem)
		}
	}
}

// mcopyKeeps reports whether the populate step's mcopy stores a file
// called name under that name.
func mcopyKeeps(t *testing.T, name string) bool {
	t.Helper()
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "d", name), []byte("x"), 0o644))
	img := sparse(t, 32*units.MiB)
	if err := tool(t, "mkfs.vfat", "--invariant", img); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TZ=UTC", "LC_ALL=C.UTF-8", "MTOOLS_SKIP_CHECK=1")
	cp := exec.Command("mcopy", "-s", "-m", "-Q", "-i", img, filepath.Join(dir, "d"), "::/")
	cp.Env, cp.Stdin = env, nil
	if cp.Run() != nil {
		return false
	}
	ls := exec.Command("mdir", "-b", "-i", img, "::/d")
	ls.Env = env
	out, err := ls.Output()
	must(t, err)
	return strings.TrimRight(string(out), "\n") == "::/d/"+name
}

// TestVFATCaseMatchesMcopy: mcopy refuses two files whose names differ
// only in case, and merges two such directories, as Resolve does.
func TestVFATCaseMatchesMcopy(t *testing.T) {
	testenv.Tools(t, "mkfs.vfat", "mcopy")
	for _, c := range []struct {
		files []string
		ok    bool
	}{
		{[]string{"/d/README", "/d/readme"}, false},
		{[]string{"/readme", "/README/x"}, false},
		{[]string{"/EFI/a", "/efi/b"}, true},
	} {
		root := t.TempDir()
		for _, f := range c.files {
			p := filepath.Join(root, filepath.FromSlash(f))
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, []byte(f), 0o644))
		}
		img := sparse(t, 32*units.MiB)
		if err := tool(t, "mkfs.vfat", "--invariant", img); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(root)
		must(t, err)
		argv := []string{"mcopy", "-s", "-m", "-Q", "-i", img}
		for _, e := range entries {
			argv = append(argv, filepath.Join(root, e.Name()))
		}
		cp := exec.Command(argv[0], append(argv[1:], "::/")...)
		cp.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C.UTF-8", "MTOOLS_SKIP_CHECK=1")
		mcopyOK := cp.Run() == nil
		_, probs := Resolve(Spec{Type: "vfat", UUID: testUUID, Size: 32 * units.MiB, HasContents: true, Files: c.files})
		if mcopyOK != c.ok || (len(probs) == 0) != c.ok {
			t.Errorf("%v: mcopy ok %t, problems %+v, want ok=%t", c.files, mcopyOK, probs, c.ok)
		}
	}
}

// TestXFSNamesMatchProtofile writes a file of each name through a
// protofile beside a file called "other", and lists the result:
// NameProblem must refuse exactly the names mkfs.xfs does not store.
func TestXFSNamesMatchProtofile(t *testing.T) {
	testenv.Tools(t, "mkfs.xfs", "xfs_db")
	typ, _ := Lookup("xfs")
	for _, name := range []string{":abc", "$", "a b", "a:b", "$x", "x$", "a-b"} {
		root := t.TempDir()
		must(t, os.WriteFile(filepath.Join(root, name), []byte("x"), 0o644))
		must(t, os.WriteFile(filepath.Join(root, "other"), []byte("y"), 0o644))
		img := sparse(t, 300*units.MiB)
		kept := false
		if tool(t, "mkfs.xfs", "-q", "-f", "-p", writeProtofile(t, t.TempDir(), root), img) == nil {
			out, err := exec.Command("xfs_db", "-r", "-c", "ls /", img).Output()
			must(t, err)
			kept = strings.Contains(string(out), " "+name+" (good)") && strings.Contains(string(out), " other (good)")
		}
		if problem := typ.NameProblem(name); (problem == "") != kept {
			t.Errorf("%q: the protofile keeps it: %t, NameProblem: %q", name, kept, problem)
		}
	}
}

// Directories whose names differ only in case are one directory on FAT,
// whether a file block or its source directory names them.
func TestVFATDirectoriesMerge(t *testing.T) {
	for _, paths := range [][]string{{"/EFI/", "/efi/boot/x"}, {"/EFI/a", "/efi/"}, {"/EFI/", "/efi/"}} {
		if _, probs := Resolve(Spec{Type: "vfat", UUID: testUUID, Size: 32 * units.MiB, HasContents: true, Files: paths}); len(probs) > 0 {
			t.Errorf("%v: %+v", paths, probs)
		}
	}
}
