package stage

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// kind is what an archive put at a path, as far as placing later entries
// is concerned.
type kind uint8

const (
	kindNone kind = iota
	kindDir
	kindSymlink
	kindOther
)

type record struct {
	kind  kind
	reg   bool  // a regular file
	mode  int64 // permission bits
	mtime time.Time
	// What Entries reports without a session (Input.NoSession); a hard
	// link shares its target's record, ino included.
	typ          byte // tar.TypeReg, TypeDir, TypeSymlink, TypeChar, ...
	uid, gid     int
	major, minor int64
	size         int64
	target       string // a symlink's
	ino          uint64 // the inode the entry is a name of, numbered from 1
}

// manifest remembers what the archives put where: the kind of every path,
// so that nothing is placed beneath a symlink or a file, and its clamped
// mtime, which clampTimes restores once tar is done.
type manifest struct {
	epoch time.Time
	paths map[string]record // by cleaned name; "." is the root
	inos  uint64            // inodes numbered so far
	// xattrs are set after extraction, by setXattrs: name -> value by
	// path. A hard link repeats its target's, so that replacing one name
	// of the inode leaves the other with them.
	xattrs map[string]map[string]string
	// limit bounds the bytes staged (file data and an inode's worth per
	// entry), 0 none; used counts them.
	limit, used int64
}

// entryCost is what an entry takes besides its data: an inode and a
// directory entry, about.
const entryCost = 256

// TooLargeError is contents that would take more than Input.Limit: a
// tarball of a larger tree, a gzip bomb, a sparse file declaring more than
// the partition holds. Staging stops at the member that goes past it.
type TooLargeError struct {
	Limit, Bytes int64 // Bytes: staged so far, the refused member included
	Member       string
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the contents (%d bytes so far, at %s) exceed the %d bytes they may take", e.Bytes, e.Member, e.Limit)
}

// charge counts an entry of size data bytes against the limit.
func (m *manifest) charge(member string, size int64) error {
	if m.limit <= 0 {
		return nil
	}
	m.used += entryCost + max(size, 0)
	if m.used > m.limit {
		return &TooLargeError{Limit: m.limit, Bytes: m.used, Member: member}
	}
	return nil
}

func newManifest(epoch int64) *manifest {
	return &manifest{epoch: time.Unix(epoch, 0), paths: map[string]record{}, xattrs: map[string]map[string]string{}}
}

func (m *manifest) clamp(t time.Time) time.Time {
	if t.After(m.epoch) {
		return m.epoch
	}
	return t
}

// writer is one archive on its way into tar. Every entry goes through add,
// which checks it against the manifest and writes it normalised.
type writer struct {
	tw sink
	m  *manifest
}

// sink receives the normalised archive: a tar.Writer feeding GNU tar in
// the session, or a diskSink creating the entries itself.
type sink interface {
	WriteHeader(*tar.Header) error
	io.Writer
}

// cleanName turns an archive or spec name into a path relative to the
// root. Leading slashes and "." components go, as GNU tar drops them; ".."
// is refused anywhere, as tar refuses it, since "a/../b" is never what a
// rootfs means and "../b" leaves it.
func cleanName(name string) (string, error) {
	var parts []string
	for _, p := range strings.Split(name, "/") {
		switch p {
		case "", ".":
		case "..":
			return "", errors.New(`the path contains ".."`)
		default:
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ".", nil
	}
	return strings.Join(parts, "/"), nil
}

// add writes one entry: src as a tarball or the directory walk described
// it, body its content when it is a regular file. Only what the image
// needs is kept: type, name, mode bits, numeric owner, clamped mtime,
// device numbers, link target and xattrs.
func (w *writer) add(src *tar.Header, body io.Reader) error {
	name, err := cleanName(src.Name)
	if err != nil {
		return fmt.Errorf("member %q: %w", src.Name, err)
	}
	at := "/" + name // for messages
	if name == "." {
		at = "/"
	}
	h := &tar.Header{
		Name: name, Mode: src.Mode & 0o7777, Uid: src.Uid, Gid: src.Gid,
		ModTime: w.m.clamp(src.ModTime), Format: tar.FormatPAX,
	}
	xattrs, err := xattrRecords(src.PAXRecords)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	w.m.inos++
	rec := record{mtime: h.ModTime, mode: h.Mode, uid: h.Uid, gid: h.Gid, ino: w.m.inos}
	switch src.Typeflag {
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse:
		// archive/tar has already filled the holes of sparse files.
		h.Typeflag, h.Size, rec.kind, rec.reg, rec.size = tar.TypeReg, src.Size, kindOther, true, src.Size
	case tar.TypeDir:
		h.Typeflag, rec.kind = tar.TypeDir, kindDir
	case tar.TypeSymlink:
		if src.Linkname == "" {
			return fmt.Errorf("%s: symlink without a target", at)
		}
		// The target is stored, never followed by this package; tar
		// itself keeps absolute and ".." targets as placeholders until
		// its end so that nothing is extracted through them.
		h.Typeflag, h.Linkname, rec.kind, rec.target, rec.size = tar.TypeSymlink, src.Linkname, kindSymlink, src.Linkname, int64(len(src.Linkname))
	case tar.TypeLink:
		target, err := cleanName(src.Linkname)
		if err != nil {
			return fmt.Errorf("%s: hard link target %q: %w", at, src.Linkname, err)
		}
		t := w.m.paths[target]
		if t.kind == kindNone || t.kind == kindDir {
			return fmt.Errorf("%s: hard link to /%s, which no earlier member created as a file", at, target)
		}
		// A hard link shares its target's inode: times and xattrs.
		h.Typeflag, h.Linkname, rec, xattrs = tar.TypeLink, target, t, w.m.xattrs[target]
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		h.Typeflag, h.Devmajor, h.Devminor, rec.kind, rec.major, rec.minor = src.Typeflag, src.Devmajor, src.Devminor, kindOther, src.Devmajor, src.Devminor
	default:
		return fmt.Errorf("%s: member type %q is not a file, directory, link, device or FIFO", at, src.Typeflag)
	}
	if h.Typeflag != tar.TypeLink {
		rec.typ = h.Typeflag
	}
	if name == "." {
		if h.Typeflag != tar.TypeDir {
			return fmt.Errorf("the root must be a directory, the archive makes it type %q", h.Typeflag)
		}
		h.Name = "./"
	} else {
		if err := w.parents(name); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeDir {
			h.Name += "/"
		}
	}
	size := int64(0)
	if h.Typeflag == tar.TypeReg {
		size = h.Size
	}
	if err := w.m.charge(at, size); err != nil {
		return err
	}
	if err := w.tw.WriteHeader(h); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if h.Typeflag == tar.TypeReg {
		n, err := io.Copy(w.tw, body)
		if err == nil && n != h.Size {
			err = fmt.Errorf("%d bytes instead of %d", n, h.Size)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
	}
	w.m.paths[name] = rec
	if len(xattrs) > 0 {
		w.m.xattrs[name] = xattrs
	} else {
		delete(w.m.xattrs, name)
	}
	return nil
}

// parents checks that every parent of name is a directory, and writes one
// for each parent nobody created: 0755 root:root at the epoch, where tar
// would make it from the host's umask and clock.
func (w *writer) parents(name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		dir := name[:i]
		switch w.m.paths[dir].kind {
		case kindDir:
		case kindNone:
			h := &tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: w.m.epoch, Format: tar.FormatPAX}
			if err := w.tw.WriteHeader(h); err != nil {
				return err
			}
			w.m.inos++
			w.m.paths[dir] = record{kind: kindDir, mtime: w.m.epoch, typ: tar.TypeDir, mode: 0o755, ino: w.m.inos}
		case kindSymlink:
			return fmt.Errorf("/%s: /%s is a symlink, and nothing is placed through a symlink", name, dir)
		default:
			return fmt.Errorf("/%s: /%s is not a directory", name, dir)
		}
	}
	return nil
}

// xattrRecords returns the xattrs among a member's PAX records, by name.
// The other records are carried by the header (path, size, times, owners)
// or must not be passed on: GNU.sparse.* would describe holes archive/tar
// already filled. POSIX ACLs are refused rather than dropped: fakeroot
// cannot record them (tar's acl_set_file fails with "Operation not
// supported" in a session), and an image silently missing an ACL is a
// security difference.
func xattrRecords(in map[string]string) (map[string]string, error) {
	var out map[string]string
	for k, v := range in {
		name, ok := strings.CutPrefix(k, "SCHILY.xattr.")
		if strings.HasPrefix(k, "SCHILY.acl.") || strings.HasPrefix(name, "system.") {
			return nil, fmt.Errorf("carries a POSIX ACL (%s), which cannot be staged without root", k)
		}
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = v
	}
	return out, nil
}
