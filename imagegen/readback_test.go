package imagegen

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/imagegen/readback"
	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// populatedFS are the filesystems TestPopulationReadsBack fills, with
// their partition sizes: each type's smallest comfortable size (xfs needs
// 300MiB, btrfs with dup metadata 109MiB).
var populatedFS = []struct{ typ, size string }{
	{"ext4", "32MiB"},
	{"btrfs", "128MiB"},
	{"xfs", "300MiB"},
	{"squashfs", "16MiB"},
	{"erofs", "16MiB"},
	{"vfat", "32MiB"},
}

// The single file both images get from a `file` block.
const (
	motdPath    = "/etc/motd"
	motdContent = "Authorised use only.\n"
)

// populatedSpec is two images: "fromdir" fills every type from the
// directory src (vfat from fatsrc: FAT holds no symlinks, and fsbench
// refuses them rather than let mcopy follow them on the host), "fromtar"
// every type but vfat and btrfs from root.tar (FAT cannot hold its device
// nodes, owners or FIFO; mkfs.btrfs 6.2 loses device numbers, which the
// build refuses, see TestBuildRefusesLosses). Both add /etc/motd from a file
// block, 0600 and owned by 1000:1000. Partition names are unique across
// images: "dir-ext4", "tar-ext4", ...
func populatedSpec() string {
	var b strings.Builder
	for _, img := range []struct{ name, prefix, size, contents string }{
		{"fromdir", "dir-", "600MiB", `dir = "src"`},
		{"fromtar", "tar-", "560MiB", `tar = "root.tar"`},
	} {
		fmt.Fprintf(&b, "image %q {\n  size = %q\n", img.name, img.size)
		for _, fs := range populatedFS {
			if (fs.typ == "vfat" || fs.typ == "btrfs") && img.name == "fromtar" {
				continue
			}
			contents := img.contents
			if fs.typ == "vfat" {
				contents = `dir = "fatsrc"`
			}
			fmt.Fprintf(&b, `  partition %q {
    size = %q
    filesystem { type = %q }
    contents {
      %s
      file %q {
        content = %q
        mode    = "0600"
        owner   = "1000:1000"
      }
    }
  }
`, img.prefix+fs.typ, fs.size, fs.typ, contents, motdPath, motdContent)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// writeSourceTree writes the directory contents: regular files (empty,
// 3MiB, a Unicode name beyond the BMP), a relative and an absolute
// symlink, a hard-link pair, a 0700 directory, a setuid file and, where
// the host filesystem has them, a user xattr. No name has whitespace:
// mkfs.xfs protofiles cannot name such files, which the plan refuses.
func writeSourceTree(t *testing.T, dir string) {
	t.Helper()
	large := make([]byte, 3<<20)
	rand.New(rand.NewSource(1)).Read(large)
	files := []struct {
		path string
		mode os.FileMode
		data []byte
	}{
		{"etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\n")},
		{"empty", 0o644, nil},
		{"large.bin", 0o644, large},
		{"ünïcödé-名前-😀.txt", 0o644, []byte("unicode\n")},
		{"hello.txt", 0o644, []byte("hello\n")},
		{"private/secret.txt", 0o600, []byte("secret\n")},
		{"bin/su-helper", 0o4755, []byte("#!/bin/sh\nexec id\n")},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil { // umask and setuid
			t.Fatal(err)
		}
	}
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{".", 0o755}, {"etc", 0o755}, {"bin", 0o755}, {"private", 0o700}} {
		if err := os.Chmod(filepath.Join(dir, d.path), d.mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(dir, "hello.txt"), filepath.Join(dir, "hard-link.txt")); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"link": "hello.txt", "passwd-link": "/etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Setxattr(filepath.Join(dir, "hello.txt"), "user.origin", []byte("source dir"), 0); err != nil {
		t.Logf("no user xattr in the source tree: %v", err)
	}
}

// tarMember is one member of root.tar.
type tarMember struct {
	h    tar.Header
	data string
}

// vfsCapNetRaw is security.capability v2 granting CAP_NET_RAW, effective:
// what `setcap cap_net_raw+ep` writes.
const vfsCapNetRaw = "\x01\x00\x00\x02\x00\x20\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// tarMembers is root.tar: a Buildroot-like tree with a character and a
// block device, www-data (33:33) files with a user xattr, a setgid and a
// sticky directory, a hard link, a symlink owned by 33:33, a setuid file,
// a file with a capability and a FIFO.
func tarMembers() []tarMember {
	epoch := time.Unix(1700000000, 0)
	dir := func(name string, mode int64, uid, gid int) tarMember {
		return tarMember{h: tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: uid, Gid: gid, ModTime: epoch}}
	}
	reg := func(name string, mode int64, uid, gid int, data string) tarMember {
		return tarMember{h: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Uid: uid, Gid: gid, Size: int64(len(data)), ModTime: epoch}, data: data}
	}
	dev := func(typ byte, name string, mode int64, gid int, major, minor int64) tarMember {
		return tarMember{h: tar.Header{Typeflag: typ, Name: name, Mode: mode, Gid: gid, Devmajor: major, Devminor: minor, ModTime: epoch}}
	}
	index := reg("var/www/index.html", 0o640, 33, 33, "<h1>board</h1>\n")
	index.h.PAXRecords = map[string]string{"SCHILY.xattr.user.mime_type": "text/html"}
	ping := reg("usr/bin/ping", 0o755, 0, 0, "\x7fELF ping\n")
	ping.h.PAXRecords = map[string]string{"SCHILY.xattr.security.capability": vfsCapNetRaw}
	return []tarMember{
		dir("./", 0o755, 0, 0),
		dir("dev/", 0o755, 0, 0),
		dev(tar.TypeChar, "dev/null", 0o666, 0, 1, 3),
		dev(tar.TypeBlock, "dev/loop0", 0o660, 6, 7, 0),
		dir("etc/", 0o755, 0, 0),
		reg("etc/hostname", 0o644, 0, 0, "board\n"),
		dir("run/", 0o755, 0, 0),
		{h: tar.Header{Typeflag: tar.TypeFifo, Name: "run/initctl", Mode: 0o600, ModTime: epoch}},
		dir("tmp/", 0o1777, 0, 0),
		dir("usr/", 0o755, 0, 0),
		dir("usr/bin/", 0o755, 0, 0),
		reg("usr/bin/passwd", 0o4755, 0, 0, "\x7fELF passwd\n"),
		ping,
		dir("var/", 0o755, 0, 0),
		dir("var/www/", 0o2775, 33, 33),
		index,
		{h: tar.Header{Typeflag: tar.TypeLink, Name: "var/www/same.html", Linkname: "var/www/index.html", Mode: 0o640, Uid: 33, Gid: 33, ModTime: epoch}},
		{h: tar.Header{Typeflag: tar.TypeSymlink, Name: "var/www/current", Linkname: "index.html", Mode: 0o777, Uid: 33, Gid: 33, ModTime: epoch}},
	}
}

func writeTar(t *testing.T, path string, members []tarMember) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, m := range members {
		h := m.h
		h.Format = tar.FormatPAX
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(m.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// tarListing is what root.tar says the tree holds.
func tarListing(members []tarMember) readback.Listing {
	var entries []readback.Entry
	groups := map[string]int{}
	for _, m := range members {
		h := m.h
		p := "/" + strings.Trim(strings.TrimPrefix(h.Name, "./"), "/")
		e := readback.Entry{Path: p, Perm: uint32(h.Mode) & 0o7777, UID: uint32(h.Uid), GID: uint32(h.Gid), Holds: readback.All}
		switch h.Typeflag {
		case tar.TypeDir:
			e.Type = readback.Dir
		case tar.TypeReg:
			e.Type, e.Size, e.SHA256 = readback.File, int64(len(m.data)), sha256Hex(m.data)
		case tar.TypeLink:
			target := "/" + h.Linkname
			if groups[target] == 0 {
				groups[target] = len(groups) + 1
			}
			for i := range entries {
				if entries[i].Path == target {
					entries[i].Link = groups[target]
					e = entries[i]
					e.Path = p
				}
			}
		case tar.TypeSymlink:
			e.Type, e.Target = readback.Symlink, h.Linkname
		case tar.TypeChar, tar.TypeBlock:
			e.Type = readback.Char
			if h.Typeflag == tar.TypeBlock {
				e.Type = readback.Block
			}
			e.Major, e.Minor = uint32(h.Devmajor), uint32(h.Devminor)
		case tar.TypeFifo:
			e.Type = readback.FIFO
		}
		for k, v := range h.PAXRecords {
			if name, ok := strings.CutPrefix(k, "SCHILY.xattr."); ok {
				e.Xattrs = append(e.Xattrs, readback.XattrString(name, []byte(v)))
			}
		}
		entries = append(entries, e)
	}
	return readback.NewListing(entries...)
}

// withMotd adds what the file block puts in every partition.
func withMotd(l readback.Listing) readback.Listing {
	return readback.NewListing(append(append(readback.Listing(nil), l...), readback.Entry{
		Path: motdPath, Type: readback.File, Perm: 0o600, UID: 1000, GID: 1000,
		Size: int64(len(motdContent)), SHA256: sha256Hex(motdContent), Holds: readback.All,
	})...)
}

// TestPopulationReadsBack builds every filesystem that fsbench populates
// from a directory and from a tarball, reads each partition back with the
// filesystem's own tools (package readback) and compares the listing with
// what was put in: names, types, bytes, modes with setuid, setgid and
// sticky, owners, symlink targets, hard links, device numbers and xattrs,
// as far as each filesystem holds them (FAT: names, sizes and data, a
// symlink stored as a copy of its target). Every difference is an error.
func TestPopulationReadsBack(t *testing.T) {
	var types []string
	for _, fs := range populatedFS {
		types = append(types, fs.typ)
	}
	needFS(t, types...)
	path := writeSpec(t, populatedSpec())
	dir := filepath.Dir(path)
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	writeSourceTree(t, src)
	fatsrc := filepath.Join(dir, "fatsrc")
	writeFatTree(t, fatsrc)
	members := tarMembers()
	writeTar(t, filepath.Join(dir, "root.tar"), members)

	// A directory's owners become 0:0 (stage.Input.Dir): the build
	// directory belongs to whoever ran the build.
	fromDir, err := readback.ListDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fromDir {
		fromDir[i].UID, fromDir[i].GID = 0, 0
	}
	fromFat, err := readback.ListDir(fatsrc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]readback.Listing{
		"fromdir": withMotd(fromDir),
		"fromtar": withMotd(tarListing(members)),
		"fat":     withMotd(fromFat),
	}

	pl, m, out := build(t, path, 1700000000)
	for i, img := range m.Images {
		name := pl.Variants[0].Images[i].Name
		image := filepath.Join(out, img.File)
		for _, p := range img.Partitions {
			t.Run(name+"/"+p.Name, func(t *testing.T) {
				for _, tool := range readback.Tools(p.Filesystem) {
					testenv.Tool(t, tool)
				}
				if readback.NeedsRoot(p.Filesystem) && os.Geteuid() != 0 {
					if readback.Mounts(p.Filesystem) {
						testenv.Missing(t, "root to mount")
					}
					testenv.Missing(t, "root to read "+p.Filesystem+" with its owners")
				}
				source := want[name]
				if p.Filesystem == "vfat" {
					source = want["fat"]
				}
				expect, err := readback.Expect(p.Filesystem, source)
				if err != nil {
					t.Fatal(err)
				}
				if p.Filesystem == "xfs" {
					// Documented in the catalogue (filesystems/xfs.go):
					// mkfs.xfs -p protofiles carry no xattrs or hard
					// links, so xfs gets separate copies and no xattrs.
					if expect, err = expect.Project(readback.All &^ (readback.HardLinks | readback.Xattrs)); err != nil {
						t.Fatal(err)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				got, err := readback.List(ctx, p.Filesystem, extract(t, image, p.Name, p.Offset, p.Size))
				if err != nil {
					t.Fatal(err)
				}
				diffs := expect.Diff(got)
				for _, d := range diffs {
					t.Errorf("%s on %s: %s", img.File, p.Name, d)
				}
				if len(diffs) > 0 {
					t.Logf("read back:\n%s", got)
				}
			})
		}
	}
}

// TestReadbackNeedsGuest: f2fs and nilfs2 have no offline reader and no
// driver on the host, and say so with a typed error.
func TestReadbackNeedsGuest(t *testing.T) {
	for _, fs := range []string{"f2fs", "nilfs2"} {
		_, err := readback.List(context.Background(), fs, "/nonexistent.img")
		var guest *readback.NeedsGuestError
		if !errors.Is(err, readback.ErrNeedsGuest) || !errors.As(err, &guest) || guest.FS != fs {
			t.Errorf("List(%s) = %v, want a NeedsGuestError", fs, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "reading "+fs+" needs a VM") {
			t.Errorf("List(%s) error %q does not say that reading %s needs a VM", fs, err, fs)
		}
	}
}

// writeFatTree writes what FAT can hold: files and directories, with a
// long name inside the Basic Multilingual Plane.
func writeFatTree(t *testing.T, dir string) {
	t.Helper()
	for path, data := range map[string]string{
		"etc/passwd":     "root:x:0:0:root:/root:/bin/sh\n",
		"hello.txt":      "hello\n",
		"ünïcödé-名前.txt": "unicode\n",
		"boot/zImage":    strings.Repeat("kernel", 50000),
		"empty":          "",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuildRefusesLosses: contents a type cannot keep stop the build with
// a message naming them, instead of an image that differs from its
// contents (or, for a FIFO on vfat, a build that never ends).
func TestBuildRefusesLosses(t *testing.T) {
	needFS(t, "vfat", "btrfs")
	for _, c := range []struct {
		name, fs string
		make     func(t *testing.T, dir string)
		want     string
	}{
		{"symlink on vfat", "vfat", func(t *testing.T, dir string) {
			os.Symlink("/etc/passwd", filepath.Join(dir, "passwd-link"))
		}, "vfat cannot keep /passwd-link (a symlink)"},
		{"fifo on vfat", "vfat", func(t *testing.T, dir string) {
			if err := unix.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "vfat cannot keep /pipe (a FIFO)"},
		{"emoji on vfat", "vfat", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "smile-😀.txt"), []byte("x"), 0o644)
		}, `vfat cannot keep /smile-😀.txt (a name that holds "😀", past U+FFFF)`},
		{"reserved character on vfat", "vfat", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "why?"), []byte("x"), 0o644)
		}, `vfat cannot keep /why? (a name that holds "?")`},
		{"case on vfat", "vfat", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644)
			os.WriteFile(filepath.Join(dir, "readme"), []byte("y"), 0o644)
		}, "vfat cannot keep /readme (the same name as /README)"},
		{"device on btrfs", "btrfs", func(t *testing.T, dir string) {
			writeTar(t, filepath.Join(dir, "..", "dev.tar"), []tarMember{
				{h: tar.Header{Name: "null", Typeflag: tar.TypeChar, Mode: 0o666, Devmajor: 1, Devminor: 3}},
			})
		}, "btrfs cannot keep /null (a device node)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			contents := `dir = "src"`
			if c.fs == "btrfs" {
				contents = `tar = "dev.tar"`
			}
			path := writeSpec(t, fmt.Sprintf(`image "d" {
  size = "256MiB"
  partition "p" {
    size = "200MiB"
    filesystem { type = %q }
    contents { %s }
  }
}
`, c.fs, contents))
			src := filepath.Join(filepath.Dir(path), "src")
			os.MkdirAll(src, 0o755)
			c.make(t, src)
			s, p, diags := plan.LoadSealed(path, spec.Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := Build(ctx, p, p.Variants[0], Options{OutDir: t.TempDir(), SpecDir: s.Dir, CacheDir: testbin.CacheDir(), Runner: testbin.Runner(t, p.Variants[0].Board.Arch)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("build error = %v, want one containing %q", err, c.want)
			}
		})
	}
}
