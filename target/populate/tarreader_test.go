package populate

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsbench/fsbench/internal/testenv"
)

// member is what both readers say of one member.
type member struct {
	name, link string
	typ        byte
	mode       int64
	uid, gid   int
	mtime      int64
	dev        [2]int64
	xattrs     string
	data       string
}

func readOurs(t *testing.T, b []byte) []member {
	t.Helper()
	tr := newTarReader(bytes.NewReader(b))
	var out []member
	for {
		h, err := tr.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		var xs []string
		for _, k := range h.xattrNames() {
			xs = append(xs, k+"="+h.xattrs[k])
		}
		out = append(out, member{h.name, h.linkname, h.typeflag, h.mode, h.uid, h.gid, h.mtime,
			[2]int64{h.devmajor, h.devminor}, strings.Join(xs, ","), string(data)})
	}
}

func readStd(t *testing.T, b []byte) []member {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(b))
	var out []member
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		var xs []string
		for _, k := range sortedKeys(h.PAXRecords) {
			if name, ok := strings.CutPrefix(k, "SCHILY.xattr."); ok {
				xs = append(xs, name+"="+h.PAXRecords[k])
			}
		}
		out = append(out, member{h.Name, h.Linkname, h.Typeflag, h.Mode, h.Uid, h.Gid, h.ModTime.UnixNano(),
			[2]int64{h.Devmajor, h.Devminor}, strings.Join(xs, ","), string(data)})
	}
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// The reader reads what GNU tar writes the way the build archives a
// staged tree, as archive/tar reads it: long names and link targets,
// hard links, symlinks, FIFOs, xattrs, sub-second times, empty and odd
// sizes.
func TestTarReaderReadsGNUTar(t *testing.T) {
	testenv.Tool(t, "tar")
	src := t.TempDir()
	long := strings.Repeat("d", 120) + "/" + strings.Repeat("f", 150)
	files := map[string]string{"a": "alpha", "empty": "", "odd": strings.Repeat("x", 513), long: "deep"}
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Link(filepath.Join(src, "a"), filepath.Join(src, "hard")))
	must(os.Symlink(strings.Repeat("t", 140), filepath.Join(src, "sym")))
	must(exec.Command("mkfifo", filepath.Join(src, "fifo")).Run())
	mt := time.Unix(1700000000, 123456789)
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if fi.Mode()&os.ModeSymlink == 0 {
			os.Chtimes(p, mt, mt)
		}
		return nil
	})
	xattrs := exec.Command("setfattr", "-n", "user.fsbench", "-v", "yes", filepath.Join(src, "a")).Run() == nil
	archive := filepath.Join(t.TempDir(), "t.tar")
	out, err := exec.Command("tar", "--create", "--format=pax", "--numeric-owner", "--sort=name",
		"--xattrs", "--xattrs-include=*", "--file", archive, "--directory", src, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	ours, std := readOurs(t, b), readStd(t, b)
	if len(ours) != len(std) || len(ours) < 8 {
		t.Fatalf("%d members, archive/tar %d", len(ours), len(std))
	}
	sawXattr, sawNs := false, false
	for i := range ours {
		if ours[i] != std[i] {
			t.Errorf("member %d:\n ours %+v\n  std %+v", i, ours[i], std[i])
		}
		sawXattr = sawXattr || ours[i].xattrs != ""
		sawNs = sawNs || ours[i].mtime%1e9 != 0
	}
	if xattrs && !sawXattr {
		t.Error("the xattr GNU tar stored was not read")
	}
	if !sawNs {
		t.Error("no sub-second mtime read")
	}
}

// A damaged or hostile archive is refused with an error, never a panic or
// a silent short read.
func TestTarReaderRefusesDamage(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: "f", Mode: 0o644, Size: 2000, Format: tar.FormatPAX,
		PAXRecords: map[string]string{"SCHILY.xattr.user.x": "y"}})
	tw.Write(bytes.Repeat([]byte{'z'}, 2000))
	tw.Close()
	good := b.Bytes()
	read := func(data []byte) error {
		tr := newTarReader(bytes.NewReader(data))
		for {
			if _, err := tr.next(); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return err
			}
		}
	}
	if err := read(good); err != nil {
		t.Fatalf("the good archive: %v", err)
	}
	for name, data := range map[string][]byte{
		"truncated data":   good[:len(good)-1500],
		"truncated header": good[:700],
		"bad checksum":     flip(good, 1024+10),
		"bad pax length":   replace(good, []byte("25 SCHILY"), []byte("99 SCHILY")),
		"huge pax header":  hugePAX(),
	} {
		if err := read(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x55
	return c
}

func replace(b, old, new []byte) []byte {
	if !bytes.Contains(b, old) {
		panic("no " + string(old))
	}
	return bytes.Replace(bytes.Clone(b), old, new, 1)
}

// hugePAX is a pax header that claims 2 GiB of records.
func hugePAX() []byte {
	var h [blockSize]byte
	copy(h[:], "././@PaxHeader")
	copy(h[100:], "0000644\x00")
	copy(h[124:], "20000000000\x00")
	h[156] = typePAX
	copy(h[257:], "ustar\x0000")
	sum := 0
	for i, c := range h {
		if i >= 148 && i < 156 {
			c = ' '
		}
		sum += int(c)
	}
	copy(h[148:], []byte(strings.Repeat("0", 6-len(octal(sum)))+octal(sum)+"\x00 "))
	return h[:]
}

func octal(n int) string {
	s := ""
	for ; n > 0; n /= 8 {
		s = string(rune('0'+n%8)) + s
	}
	return s
}

func FuzzTarReader(f *testing.F) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	tw.WriteHeader(&tar.Header{Name: strings.Repeat("n", 200), Mode: 0o644, Size: 3, Format: tar.FormatPAX})
	tw.Write([]byte("abc"))
	tw.WriteHeader(&tar.Header{Name: "l", Typeflag: tar.TypeSymlink, Linkname: "x", Format: tar.FormatUSTAR})
	tw.Close()
	f.Add(b.Bytes())
	f.Add(hugePAX())
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := newTarReader(bytes.NewReader(data))
		for i := 0; i < 1000; i++ {
			h, err := tr.next()
			if err != nil {
				return
			}
			if h.size < 0 {
				t.Fatalf("negative size %d", h.size)
			}
			if _, err := io.Copy(io.Discard, tr); err != nil {
				return
			}
		}
	})
}
