package readback

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
)

// Type is the kind of an entry.
type Type string

// The entry types.
const (
	File    Type = "file"
	Dir     Type = "dir"
	Symlink Type = "symlink"
	Char    Type = "char"
	Block   Type = "block"
	FIFO    Type = "fifo"
	Socket  Type = "socket"
)

// Fields is a set of the things a filesystem can hold besides names,
// directories and the type of each entry.
type Fields uint16

// The fields.
const (
	// Modes: permission bits, with setuid, setgid and sticky.
	Modes Fields = 1 << iota
	// Owners: uid and gid.
	Owners
	// Data: the size and SHA-256 of regular files.
	Data
	// Symlinks: symbolic links and their targets.
	Symlinks
	// Devices: character and block devices with their numbers, FIFOs and
	// sockets.
	Devices
	// HardLinks: several names for one inode.
	HardLinks
	// Xattrs: extended attributes.
	Xattrs

	// All is what a POSIX filesystem holds.
	All = Modes | Owners | Data | Symlinks | Devices | HardLinks | Xattrs
)

var fieldNames = []string{"modes", "owners", "data", "symlinks", "devices", "hard links", "xattrs"}

func (f Fields) String() string {
	if f == All {
		return "all"
	}
	var names []string
	for i, n := range fieldNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "names only"
	}
	return strings.Join(names, ", ")
}

// Entry is one path of a listing. Fields that the filesystem cannot hold
// (see Holds) and fields that do not apply to the type are zero.
type Entry struct {
	// Path is absolute within the filesystem: "/" is its root,
	// "/etc/hostname" a file.
	Path string
	Type Type
	// Perm is the permission bits with setuid, setgid and sticky (07777).
	Perm     uint32
	UID, GID uint32
	// Size and SHA256 (lowercase hex) are a regular file's data.
	Size   int64
	SHA256 string
	// Target is a symlink's target.
	Target string
	// Major and Minor are a character or block device's numbers.
	Major, Minor uint32
	// Link is the hard-link group: entries that share an inode have the
	// same Link, numbered from 1 by first appearance in path order; 0 is a
	// file with one name.
	Link int
	// Xattrs are "name=value", sorted, the value quoted as by
	// strconv.Quote.
	Xattrs []string
	// Holds is what the listing's source can hold: All for a directory
	// or a POSIX filesystem, Data for FAT, whose listings carry names,
	// types, sizes and SHA-256 only.
	Holds Fields
}

// String is the entry on one line, with the fields it holds.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString(strconv.Quote(e.Path))
	b.WriteString(" ")
	b.WriteString(string(e.Type))
	if e.Holds&Modes != 0 {
		fmt.Fprintf(&b, " %04o", e.Perm)
	}
	if e.Holds&Owners != 0 {
		fmt.Fprintf(&b, " %d:%d", e.UID, e.GID)
	}
	switch e.Type {
	case File:
		fmt.Fprintf(&b, " size=%d sha256=%s", e.Size, e.SHA256)
		if e.Link != 0 {
			fmt.Fprintf(&b, " link=%d", e.Link)
		}
	case Symlink:
		fmt.Fprintf(&b, " -> %s", strconv.Quote(e.Target))
	case Char, Block:
		fmt.Fprintf(&b, " dev=%d,%d", e.Major, e.Minor)
	}
	for _, x := range e.Xattrs {
		b.WriteString(" xattr:")
		b.WriteString(x)
	}
	if e.Holds != All {
		fmt.Fprintf(&b, " (holds %s)", e.Holds)
	}
	return b.String()
}

// Listing is a filesystem's or a directory's entries, sorted by path.
type Listing []Entry

// String is the listing, one entry a line.
func (l Listing) String() string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.String())
		b.WriteString("\n")
	}
	return b.String()
}

// Lookup returns the entry at path p.
func (l Listing) Lookup(p string) (Entry, bool) {
	i := sort.Search(len(l), func(i int) bool { return l[i].Path >= p })
	if i < len(l) && l[i].Path == p {
		return l[i], true
	}
	return Entry{}, false
}

// NewListing sorts entries by path and renumbers their hard-link groups by
// first appearance, keeping which entries share a group: a way to write an
// expected listing by hand.
func NewListing(entries ...Entry) Listing {
	l := append(Listing(nil), entries...)
	for i := range l {
		l[i].Xattrs = append([]string(nil), l[i].Xattrs...)
		sort.Strings(l[i].Xattrs)
	}
	return l.renumber()
}

// XattrString formats one xattr as a Listing holds it.
func XattrString(name string, value []byte) string {
	return name + "=" + strconv.Quote(string(value))
}

// inodeKey identifies an inode within one listing source.
type inodeKey [2]uint64

// finish sorts entries by path and numbers the hard-link groups: inodes
// that appear at more than one path, numbered by first appearance. keys
// holds the inode of each entry (nil for those that cannot be linked).
func finish(entries []Entry, keys []*inodeKey) Listing {
	idx := make([]int, len(entries))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return entries[idx[a]].Path < entries[idx[b]].Path })
	count := map[inodeKey]int{}
	for _, k := range keys {
		if k != nil {
			count[*k]++
		}
	}
	group := map[inodeKey]int{}
	out := make(Listing, 0, len(entries))
	for _, i := range idx {
		e := entries[i]
		e.Link = 0
		if k := keys[i]; k != nil && count[*k] > 1 && e.Type != Dir {
			if group[*k] == 0 {
				group[*k] = len(group) + 1
			}
			e.Link = group[*k]
		}
		sort.Strings(e.Xattrs)
		out = append(out, e)
	}
	return out
}

// renumber recomputes hard-link groups in path order after entries were
// added or removed, keeping which entries share a group.
func (l Listing) renumber() Listing {
	sort.SliceStable(l, func(a, b int) bool { return l[a].Path < l[b].Path })
	count := map[int]int{}
	for _, e := range l {
		if e.Link != 0 {
			count[e.Link]++
		}
	}
	group := map[int]int{}
	for i := range l {
		old := l[i].Link
		if old == 0 {
			continue
		}
		if count[old] < 2 {
			l[i].Link = 0
			continue
		}
		if group[old] == 0 {
			group[old] = len(group) + 1
		}
		l[i].Link = group[old]
	}
	return l
}

// peers maps each hard-linked path to the other paths of its group.
func (l Listing) peers() map[string][]string {
	groups := map[int][]string{}
	for _, e := range l {
		if e.Link != 0 {
			groups[e.Link] = append(groups[e.Link], e.Path)
		}
	}
	out := map[string][]string{}
	for _, paths := range groups {
		for _, p := range paths {
			for _, q := range paths {
				if q != p {
					out[p] = append(out[p], q)
				}
			}
		}
	}
	return out
}

// Diff lists, one human-readable line each, the differences between l,
// what was expected, and o, what was found: paths missing from o, paths
// only in o, and for paths in both every field that differs among those
// both entries hold (a FAT listing compares names, types, sizes and data
// only). Hard links compare by which other paths share the inode, so that
// one missing entry does not shift every group number. An empty result
// means the listings agree.
func (l Listing) Diff(o Listing) []string {
	var out []string
	lp, op := l.peers(), o.peers()
	i, j := 0, 0
	for i < len(l) || j < len(o) {
		switch {
		case j >= len(o) || (i < len(l) && l[i].Path < o[j].Path):
			out = append(out, fmt.Sprintf("%s: missing (want %s)", strconv.Quote(l[i].Path), l[i]))
			i++
		case i >= len(l) || o[j].Path < l[i].Path:
			out = append(out, fmt.Sprintf("%s: unexpected (got %s)", strconv.Quote(o[j].Path), o[j]))
			j++
		default:
			out = append(out, diffEntry(l[i], o[j], lp[l[i].Path], op[o[j].Path])...)
			i++
			j++
		}
	}
	return out
}

func diffEntry(a, b Entry, ap, bp []string) []string {
	var out []string
	add := func(field string, want, got any) {
		out = append(out, fmt.Sprintf("%s: %s: want %v, got %v", strconv.Quote(a.Path), field, want, got))
	}
	if a.Type != b.Type {
		add("type", a.Type, b.Type)
		return out
	}
	h := a.Holds & b.Holds
	if h&Modes != 0 && a.Perm != b.Perm {
		add("mode", fmt.Sprintf("%04o", a.Perm), fmt.Sprintf("%04o", b.Perm))
	}
	if h&Owners != 0 && (a.UID != b.UID || a.GID != b.GID) {
		add("owner", fmt.Sprintf("%d:%d", a.UID, a.GID), fmt.Sprintf("%d:%d", b.UID, b.GID))
	}
	if a.Type == File && h&Data != 0 {
		if a.Size != b.Size {
			add("size", a.Size, b.Size)
		}
		if a.SHA256 != b.SHA256 {
			add("sha256", a.SHA256, b.SHA256)
		}
	}
	if a.Type == Symlink && h&Symlinks != 0 && a.Target != b.Target {
		add("symlink target", strconv.Quote(a.Target), strconv.Quote(b.Target))
	}
	if (a.Type == Char || a.Type == Block) && h&Devices != 0 && (a.Major != b.Major || a.Minor != b.Minor) {
		add("device", fmt.Sprintf("%d,%d", a.Major, a.Minor), fmt.Sprintf("%d,%d", b.Major, b.Minor))
	}
	if h&HardLinks != 0 {
		sort.Strings(ap)
		sort.Strings(bp)
		if strings.Join(ap, "\x00") != strings.Join(bp, "\x00") {
			add("hard links with", linkText(ap), linkText(bp))
		}
	}
	if h&Xattrs != 0 && strings.Join(a.Xattrs, "\x00") != strings.Join(b.Xattrs, "\x00") {
		add("xattrs", xattrText(a.Xattrs), xattrText(b.Xattrs))
	}
	return out
}

func linkText(paths []string) string {
	if len(paths) == 0 {
		return "none"
	}
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = strconv.Quote(p)
	}
	return "[" + strings.Join(q, " ") + "]"
}

func xattrText(x []string) string {
	if len(x) == 0 {
		return "none"
	}
	return "[" + strings.Join(x, " ") + "]"
}

// Holds reports what a filesystem type can hold. Every type that List
// knows is a POSIX filesystem holding All, except vfat, which holds Data
// only. ok is false for an unknown type.
func Holds(fsType string) (f Fields, ok bool) {
	t, ok := filesystems.Lookup(fsType)
	switch {
	case !ok || t.ReadBack.Method == 0:
		return 0, false
	case t.NoOwners:
		return Data, true
	}
	return All, true
}

// Expect is what a filesystem of fsType populated with source should list:
// source projected onto what the type holds (Project), plus what its mkfs
// adds by itself (ext2/3/4: /lost+found, 0700 root:root).
func Expect(fsType string, source Listing) (Listing, error) {
	f, ok := Holds(fsType)
	if !ok {
		return nil, fmt.Errorf("readback: unknown filesystem type %q", fsType)
	}
	l, err := source.Project(f)
	if err != nil {
		return nil, err
	}
	if t, _ := filesystems.Lookup(fsType); t.ReadBack.LostFound {
		if _, ok := l.Lookup("/lost+found"); !ok {
			l = append(l, Entry{Path: "/lost+found", Type: Dir, Perm: 0o700, Holds: f})
			l = l.renumber()
		}
	}
	return l, nil
}

// Project returns what l becomes in a filesystem that holds only f, the
// way the populating tools store it: fields it cannot hold are zeroed; the
// links of a hard-link group become separate files without HardLinks;
// without Symlinks, a symlink becomes a copy of what it resolves to in l
// (a file, or a directory with its whole subtree, as mcopy copies it) and
// is left out if it resolves to nothing in l; without Devices, device
// nodes, FIFOs and sockets are left out.
func (l Listing) Project(f Fields) (Listing, error) {
	var out Listing
	for _, e := range l {
		switch {
		case e.Type == Symlink && f&Symlinks == 0:
			copies, err := l.deref(e.Path, 0)
			if err != nil {
				return nil, err
			}
			out = append(out, copies...)
			continue
		case (e.Type == Char || e.Type == Block || e.Type == FIFO || e.Type == Socket) && f&Devices == 0:
			continue
		}
		out = append(out, e)
	}
	for i := range out {
		e := &out[i]
		e.Holds &= f
		if f&Modes == 0 {
			e.Perm = 0
		}
		if f&Owners == 0 {
			e.UID, e.GID = 0, 0
		}
		if f&Data == 0 {
			e.Size, e.SHA256 = 0, ""
		}
		if f&HardLinks == 0 {
			e.Link = 0
		}
		if f&Xattrs == 0 {
			e.Xattrs = nil
		}
	}
	return out.renumber(), nil
}

// maxFollow bounds symlink resolution, as the kernel's MAXSYMLINKS.
const maxFollow = 40

// resolve follows the symlinks of p within l and returns the path it names.
func (l Listing) resolve(p string) (string, bool) {
	follows := 0
	done := "/"
	rest := strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/")
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		next := path.Join(done, name)
		e, ok := l.Lookup(next)
		if !ok {
			return "", false
		}
		if e.Type != Symlink {
			done = next
			continue
		}
		if follows++; follows > maxFollow {
			return "", false
		}
		t := e.Target
		if !strings.HasPrefix(t, "/") {
			t = path.Join(done, t)
		}
		// A ".." in the target climbs from where the link is; path.Clean
		// resolves it lexically, which is right because every component
		// before the link is a real directory. (A ".." after a symlinked
		// directory inside the target itself is resolved lexically too,
		// unlike the kernel; rootfs links do not do that.)
		rest = append(strings.Split(strings.TrimPrefix(path.Clean(t), "/"), "/"), rest...)
		done = "/"
	}
	return done, true
}

// deref returns the entries that a symlink at p becomes when a tool copies
// what it resolves to.
func (l Listing) deref(p string, depth int) (Listing, error) {
	if depth > maxFollow {
		return nil, fmt.Errorf("readback: %s: symlinks to directories nest too deep (a loop?)", p)
	}
	target, ok := l.resolve(p)
	if !ok {
		return nil, nil
	}
	t, _ := l.Lookup(target)
	switch t.Type {
	case File:
		t.Path, t.Link, t.Xattrs = p, 0, nil
		return Listing{t}, nil
	case Dir:
		t.Path, t.Xattrs = p, nil
		out := Listing{t}
		prefix := strings.TrimSuffix(target, "/") + "/"
		for _, e := range l {
			if !strings.HasPrefix(e.Path, prefix) {
				continue
			}
			// Only direct children: grandchildren come with their parent,
			// which may itself be a symlink.
			rel := strings.TrimPrefix(e.Path, prefix)
			if strings.Contains(rel, "/") {
				continue
			}
			child := path.Join(p, rel)
			switch e.Type {
			case Symlink, Dir:
				sub, err := l.deref(e.Path, depth+1)
				if err != nil {
					return nil, err
				}
				for _, s := range sub {
					s.Path = child + strings.TrimPrefix(s.Path, e.Path)
					out = append(out, s)
				}
			default:
				e.Path, e.Link, e.Xattrs = child, 0, nil
				out = append(out, e)
			}
		}
		return out, nil
	}
	return nil, nil
}
