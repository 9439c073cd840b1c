package stage

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Entry is one path of the tree as the image tools see it in the session.
type Entry struct {
	Path         string // relative to Root, slash-separated; "." is Root
	Mode         uint32 // st_mode: file type and permission bits
	UID, GID     int
	Major, Minor uint32 // a device node's number
	Size         int64
	Inode        uint64 // hard links share it
	Links        uint64
	MTime        int64  // seconds
	Target       string // a symlink's target
}

// statFormat is GNU stat's, one record per path, NUL-terminated because
// names may hold newlines; the name comes last because it may hold spaces.
const statFormat = `%i %h %f %u %g %t %T %s %Y %n\0`

// Entries lists the tree, sorted by path, with the owners, modes and
// device numbers of the session. Code that writes a description of the
// tree (an xfs protofile) must use it: os.Lstat sees the build user's
// files, where device nodes are empty regular files and every owner is the
// build user. find and stat are C programs and run in the session.
//
// Without a session (Input.NoSession) the list comes from the archives as
// they were written, symlinks, devices and FIFOs included although they
// are not on disk; Inode then numbers the entries, hard links sharing one,
// and a directory's Size is 0.
func (t *Tree) Entries(ctx context.Context) ([]Entry, error) {
	if t.m != nil {
		return t.m.entries(), nil
	}
	cmd := t.Command(ctx, []string{"find", t.Root, "-exec", "stat", "--printf=" + statFormat, "{}", "+"}, nil)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("stage: listing the tree: %v %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var entries []Entry
	for _, rec := range strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00") {
		e, err := parseStat(rec, t.Root)
		if err != nil {
			return nil, fmt.Errorf("stage: listing the tree: %w", err)
		}
		if e.Mode&0o170000 == 0o120000 {
			if e.Target, err = os.Readlink(filepath.Join(t.Root, filepath.FromSlash(e.Path))); err != nil {
				return nil, err
			}
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return entries, nil
}

func parseStat(rec, root string) (Entry, error) {
	f := strings.SplitN(rec, " ", 10)
	if len(f) != 10 {
		return Entry{}, fmt.Errorf("unexpected stat output %q", rec)
	}
	var e Entry
	var err error
	num := func(s string, base, bits int) uint64 {
		v, perr := strconv.ParseUint(s, base, bits)
		if perr != nil && err == nil {
			err = fmt.Errorf("unexpected stat output %q", rec)
		}
		return v
	}
	e.Inode, e.Links = num(f[0], 10, 64), num(f[1], 10, 64)
	e.Mode = uint32(num(f[2], 16, 32))
	e.UID, e.GID = int(num(f[3], 10, 32)), int(num(f[4], 10, 32))
	e.Major, e.Minor = uint32(num(f[5], 16, 32)), uint32(num(f[6], 16, 32))
	e.Size = int64(num(f[7], 10, 63))
	mtime, perr := strconv.ParseInt(f[8], 10, 64)
	if perr != nil && err == nil {
		err = fmt.Errorf("unexpected stat output %q", rec)
	}
	e.MTime = mtime
	switch name := f[9]; {
	case name == root:
		e.Path = "."
	case strings.HasPrefix(name, root+"/"):
		e.Path = strings.TrimPrefix(name, root+"/")
	default:
		return Entry{}, fmt.Errorf("stat named %q, outside %s", name, root)
	}
	return e, err
}

// entries lists what the archives put in the tree, for Entries without a
// session.
func (m *manifest) entries() []Entry {
	root, ok := m.paths["."]
	if !ok {
		// Build made it 0755; the session shows it as root's.
		root = record{typ: tar.TypeDir, mode: 0o755, mtime: m.epoch}
	}
	links := map[uint64]uint64{}
	for _, r := range m.paths {
		links[r.ino]++
	}
	out := []Entry{m.entry(".", root, links)}
	for p, r := range m.paths {
		if p != "." {
			out = append(out, m.entry(p, r, links))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func (m *manifest) entry(p string, r record, links map[uint64]uint64) Entry {
	return Entry{
		Path: p, Mode: typeMode(r.typ) | uint32(r.mode), UID: r.uid, GID: r.gid,
		Major: uint32(r.major), Minor: uint32(r.minor), Size: r.size, Inode: r.ino,
		Links: max(links[r.ino], 1), MTime: r.mtime.Unix(), Target: r.target,
	}
}

// typeMode is st_mode's file type for a tar entry type.
func typeMode(typ byte) uint32 {
	switch typ {
	case tar.TypeDir:
		return 0o040000
	case tar.TypeSymlink:
		return 0o120000
	case tar.TypeChar:
		return 0o020000
	case tar.TypeBlock:
		return 0o060000
	case tar.TypeFifo:
		return 0o010000
	}
	return 0o100000
}
