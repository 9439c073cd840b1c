package initramfs

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// entry is one parsed newc record.
type entry struct {
	ino, mode, nlink, mtime, rmajor, rminor uint32
	name                                    string
	data                                    []byte
}

// parseNewc reads an archive independently of the writer, checking the
// magic, the zero fields and that every pad is zeros and 4-aligned.
func parseNewc(t *testing.T, b []byte) []entry {
	t.Helper()
	var out []entry
	off := 0
	for {
		if off%4 != 0 {
			t.Fatalf("header at offset %d is not 4-aligned", off)
		}
		if len(b)-off < headerLen {
			t.Fatalf("truncated header at %d", off)
		}
		h := string(b[off : off+headerLen])
		if h[:6] != "070701" {
			t.Fatalf("bad magic %q at %d", h[:6], off)
		}
		f := make([]uint32, 13)
		for i := range f {
			v, err := strconv.ParseUint(h[6+8*i:14+8*i], 16, 32)
			if err != nil {
				t.Fatalf("field %d at %d: %v", i, off, err)
			}
			f[i] = uint32(v)
		}
		for _, i := range []int{2, 3, 7, 8, 12} { // uid gid devmajor devminor check
			if f[i] != 0 {
				t.Errorf("field %d = %d, want 0", i, f[i])
			}
		}
		namesize := int(f[11])
		nameEnd := off + headerLen + namesize
		name := string(b[off+headerLen : nameEnd-1])
		if b[nameEnd-1] != 0 {
			t.Fatalf("name %q not NUL-terminated", name)
		}
		dataOff := nameEnd + pad4(headerLen+namesize)
		checkZeros(t, b[nameEnd:dataOff])
		if dataOff%4 != 0 {
			t.Fatalf("%s: data at %d not 4-aligned", name, dataOff)
		}
		size := int(f[6])
		data := b[dataOff : dataOff+size]
		off = dataOff + size + pad4(size)
		checkZeros(t, b[dataOff+size:off])
		if name == trailerName {
			if off != len(b) {
				t.Fatalf("%d bytes after trailer", len(b)-off)
			}
			return out
		}
		out = append(out, entry{f[0], f[1], f[4], f[5], f[9], f[10], name, data})
	}
}

func checkZeros(t *testing.T, b []byte) {
	t.Helper()
	for _, c := range b {
		if c != 0 {
			t.Fatalf("non-zero padding %q", b)
		}
	}
}

// TestAlignment covers names and data of every length 1..8, so every
// remainder mod 4 of both occurs twice, including the combinations of the two.
func TestAlignment(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var want []entry
	add := func(name string, data []byte, symlink bool) {
		var err error
		if symlink {
			err = w.Symlink(name, string(data))
		} else {
			err = w.File(name, 0o644, data)
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, entry{name: name, data: data})
	}
	for n := 1; n <= 8; n++ {
		for d := 1; d <= 8; d++ {
			// The letter picks d and the length is n: unique names of
			// exactly n bytes.
			add(strings.Repeat(string(rune('a'+d-1)), n), bytes.Repeat([]byte{'0' + byte(n)}, d), false)
		}
		add(strings.Repeat("z", n), []byte(strings.Repeat("t", n)), true)
		add(strings.Repeat("y", n), nil, false) // no data: no data padding
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := parseNewc(t, buf.Bytes())
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].name || !bytes.Equal(got[i].data, want[i].data) {
			t.Errorf("entry %d = %q %q, want %q %q", i, got[i].name, got[i].data, want[i].name, want[i].data)
		}
		if got[i].ino != uint32(i+1) {
			t.Errorf("%s: ino %d, want %d", got[i].name, got[i].ino, i+1)
		}
	}
}

func TestFields(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.SetModTime(1700000000)
	w.Dir("/dev", 0o755)
	w.CharDev("/dev/console", 0o600, 5, 1)
	w.File("init", 0o755, []byte("#!/bin/sh\n"))
	w.Symlink("sbin", "bin")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{1, 0o040755, 2, 1700000000, 0, 0, "dev", nil},
		{2, 0o020600, 1, 1700000000, 5, 1, "dev/console", nil},
		{3, 0o100755, 1, 1700000000, 0, 0, "init", []byte("#!/bin/sh\n")},
		{4, 0o120777, 1, 1700000000, 0, 0, "sbin", []byte("bin")},
	}
	got := parseNewc(t, buf.Bytes())
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range want {
		g, e := got[i], want[i]
		if g.ino != e.ino || g.mode != e.mode || g.nlink != e.nlink || g.mtime != e.mtime ||
			g.rmajor != e.rmajor || g.rminor != e.rminor || g.name != e.name || !bytes.Equal(g.data, e.data) {
			t.Errorf("entry %d = %+v, want %+v", i, g, e)
		}
	}
}

func TestRejects(t *testing.T) {
	for name, f := range map[string]func(w *Writer) error{
		"dotdot":         func(w *Writer) error { return w.File("a/../b", 0o644, nil) },
		"leading dotdot": func(w *Writer) error { return w.File("../b", 0o644, nil) },
		"dot":            func(w *Writer) error { return w.Dir("./a", 0o755) },
		"double slash":   func(w *Writer) error { w.Dir("a", 0o755); return w.File("a//b", 0o644, nil) },
		"empty":          func(w *Writer) error { return w.Dir("/", 0o755) },
		"trailer":        func(w *Writer) error { return w.File(trailerName, 0o644, nil) },
		"duplicate":      func(w *Writer) error { w.Dir("a", 0o755); return w.File("/a", 0o644, nil) },
		"no parent":      func(w *Writer) error { return w.File("a/b", 0o644, nil) },
		"file parent":    func(w *Writer) error { w.File("a", 0o644, nil); return w.File("a/b", 0o644, nil) },
		"type bits":      func(w *Writer) error { return w.File("a", 0o100644, nil) },
		"empty target":   func(w *Writer) error { return w.Symlink("a", "") },
		"not regular":    func(w *Writer) error { return w.FileFrom("a", 0o644, os.TempDir()) },
		"missing":        func(w *Writer) error { return w.FileFrom("a", 0o644, "/nonexistent/x") },
		"after close":    func(w *Writer) error { w.Close(); return w.Dir("a", 0o755) },
	} {
		w := NewWriter(io.Discard)
		err := f(w)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if name != "after close" && w.Close() == nil {
			t.Errorf("%s: Close after an error succeeded", name)
		}
	}
}

// build writes the same small tree every time; the tests compare its bytes.
func build(t *testing.T, w *Writer, hostFile string) {
	t.Helper()
	steps := []error{
		w.Dir("dev", 0o755),
		w.CharDev("dev/console", 0o600, 5, 1),
		w.Dir("bin", 0o755),
		w.Dir("lib", 0o755),
		w.Dir("lib/modules", 0o700),
		w.File("init", 0o755, []byte("#!/bin/sh\necho hi\n")),
		w.File("empty", 0o644, nil),
		w.File("bin/odd", 0o4751, []byte("abcde")),
		w.FileFrom("lib/modules/virtio_blk.ko", 0o644, hostFile),
		w.Symlink("sbin", "bin"),
		w.Symlink("lib/modules/abs", "/lib/modules/virtio_blk.ko"),
		w.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
}

func hostFile(t *testing.T) (string, []byte) {
	data := make([]byte, 4099)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(t.TempDir(), "virtio_blk.ko")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p, data
}

func TestReproducible(t *testing.T) {
	src, _ := hostFile(t)
	var a, b, za, zb bytes.Buffer
	build(t, NewWriter(&a), src)
	build(t, NewWriter(&b), src)
	build(t, NewGzipWriter(&za), src)
	build(t, NewGzipWriter(&zb), src)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("plain archives differ")
	}
	if !bytes.Equal(za.Bytes(), zb.Bytes()) {
		t.Error("gzip archives differ")
	}
	zr, err := gzip.NewReader(bytes.NewReader(za.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" || zr.Comment != "" {
		t.Errorf("gzip header has ModTime %v name %q comment %q", zr.ModTime, zr.Name, zr.Comment)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, a.Bytes()) {
		t.Error("gzip archive does not decompress to the plain one")
	}
}
