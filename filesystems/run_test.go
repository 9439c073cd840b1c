package filesystems

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// This file is the tests' stand-in for image generation: it stages a tree,
// writes the files the placeholders name and runs the resolved commands.

const testEpoch = 1700000000

// requireTools skips the test, with the one message every fsbench test uses,
// when a host tool is missing.
// stage writes a small root filesystem whose timestamps are clamped to the
// epoch, as the real stager does. Two calls give the same tree with
// different ctimes and inode numbers. spaces adds a name with spaces, which
// an xfs protofile cannot express.
func stage(t *testing.T, spaces bool) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	blob := make([]byte, 300*1024)
	for i := range blob {
		blob[i] = byte(i*7 + i/251)
	}
	files := map[string][]byte{
		"etc/hostname": []byte("board\n"),
		"etc/fstab":    []byte("/dev/root / auto defaults 0 1\n"),
		"bin/busybox":  blob,
	}
	if spaces {
		files["usr/share/with space.txt"] = []byte("spaces in names\n")
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, files[name], 0o644))
	}
	must(t, os.MkdirAll(filepath.Join(root, "empty"), 0o755))
	must(t, os.Symlink("busybox", filepath.Join(root, "bin/sh")))
	must(t, os.Chmod(filepath.Join(root, "bin/busybox"), 0o755))
	clampTimes(t, root)
	return root
}

func clampTimes(t *testing.T, root string) {
	t.Helper()
	var paths []string
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink == 0 {
			paths = append(paths, p)
		}
		return err
	}))
	// Deepest first, so that setting a child's time does not move its
	// directory's.
	sort.Sort(sort.Reverse(sort.StringSlice(paths)))
	ts := time.Unix(testEpoch, 0)
	for _, p := range paths {
		must(t, os.Chtimes(p, ts, ts))
	}
}

// buildImage runs r's commands for spec s on the staged root and returns
// the image path and its SHA-256.
func buildImage(t *testing.T, s Spec, r Resolved, root string, epoch int64) (string, string) {
	t.Helper()
	dir := t.TempDir()
	img := filepath.Join(dir, "fs.img")
	typ, _ := Lookup(s.Type)
	if !typ.ReadOnly {
		f, err := os.Create(img)
		must(t, err)
		must(t, f.Truncate(s.Size))
		must(t, f.Close())
	}
	sub := map[string]string{
		"{image}": img, "{root}": root, "{epoch}": fmt.Sprint(epoch),
		"{protofile}":      writeProtofile(t, dir, root),
		"{debugfs_script}": writeDebugfsScript(t, dir, root, epoch),
	}
	for _, c := range append([]Command{r.Mkfs}, r.Populate...) {
		run(t, c, sub, root)
	}
	f, err := os.Open(img)
	must(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	must(t, err)
	return img, hex.EncodeToString(h.Sum(nil))
}

func run(t *testing.T, c Command, sub map[string]string, root string) {
	t.Helper()
	var argv []string
	for _, a := range c.Argv {
		if a == "{xfs_mode_fixups}" {
			return // the staged test trees hold no sticky entries
		}
		if a == "{root_entries}" {
			entries, err := os.ReadDir(root)
			must(t, err)
			if len(entries) == 0 {
				return
			}
			for _, e := range entries { // ReadDir sorts by name
				argv = append(argv, filepath.Join(root, e.Name()))
			}
			continue
		}
		argv = append(argv, substitute(a, sub))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = os.Environ()
	for _, e := range c.Env {
		cmd.Env = append(cmd.Env, substitute(e, sub))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
}

func substitute(s string, sub map[string]string) string {
	for k, v := range sub {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// writeDebugfsScript resets all four timestamps of every staged path, the
// {debugfs_script} the ext populate step runs.
func writeDebugfsScript(t *testing.T, dir, root string, epoch int64) string {
	t.Helper()
	var b strings.Builder
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		path := "/" + filepath.ToSlash(rel)
		if rel == "." {
			path = "/"
		}
		for _, f := range []string{"atime", "ctime", "mtime", "crtime"} {
			fmt.Fprintf(&b, "set_inode_field %q %s %d\n", path, f, epoch)
		}
		return nil
	}))
	p := filepath.Join(dir, "debugfs.script")
	must(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// writeProtofile describes the staged tree in mkfs.xfs's protofile format
// (xfsprogs mkfs/proto.c): a boot image line, a block/inode count line, the
// root directory, then "name mode uid gid [source]" per entry with $ closing
// each directory.
func writeProtofile(t *testing.T, dir, root string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("/dev/null\n0 0\nd--755 0 0\n")
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		entries, err := os.ReadDir(d)
		must(t, err)
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			fi, err := os.Lstat(p)
			must(t, err)
			perm := fmt.Sprintf("%03o", fi.Mode().Perm())
			indent := strings.Repeat(" ", depth)
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, err := os.Readlink(p)
				must(t, err)
				fmt.Fprintf(&b, "%s%s l--%s 0 0 %s\n", indent, e.Name(), perm, target)
			case fi.IsDir():
				fmt.Fprintf(&b, "%s%s d--%s 0 0\n", indent, e.Name(), perm)
				walk(p, depth+1)
				fmt.Fprintf(&b, "%s$\n", indent)
			default:
				fmt.Fprintf(&b, "%s%s ---%s 0 0 %s\n", indent, e.Name(), perm, p)
			}
		}
	}
	walk(root, 1)
	b.WriteString("$\n")
	p := filepath.Join(dir, "proto")
	must(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
