package imagegen

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/imagegen/stage"
)

// File type bits of st_mode.
const (
	modeType    = 0o170000
	modeDir     = 0o040000
	modeSymlink = 0o120000
	modeChar    = 0o020000
	modeBlock   = 0o060000
	modeFIFO    = 0o010000
	modeSocket  = 0o140000
	modeSetuid  = 0o4000
	modeSetgid  = 0o2000
	modeSticky  = 0o1000
)

// writeDebugfsScript writes the script the ext populate step runs: it
// gives every path of the tree all four timestamps at epoch, because mke2fs
// -d copies each file's ctime, which no stager can set, and its atime,
// which every reader of the tree moves; and the owner of the reowned
// paths (a directory read in place) becomes the entry's. crtime needs no
// command: mke2fs sets it to its clock, E2FSPROGS_FAKE_TIME, which is
// epoch; nor does an mtime the tree already has at epoch. debugfs spends
// its time on the commands, one path lookup each.
func writeDebugfsScript(file string, entries []stage.Entry, reowned map[string]bool, epoch int64) error {
	var b strings.Builder
	for _, e := range entries {
		p := "/"
		if e.Path != "." {
			p += e.Path
		}
		// "@N" is seconds since 1970: debugfs reads a bare number as a
		// YYYYMMDD... date (315532800 became 2066).
		fmt.Fprintf(&b, "set_inode_field %q atime @%d\nset_inode_field %q ctime @%d\n", p, epoch, p, epoch)
		if e.MTime != epoch {
			fmt.Fprintf(&b, "set_inode_field %q mtime @%d\n", p, epoch)
		}
		if reowned[e.Path] {
			fmt.Fprintf(&b, "set_inode_field %q uid %d\nset_inode_field %q gid %d\n", p, e.UID, p, e.GID)
		}
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// writeProtofile describes the staged tree in mkfs.xfs's protofile format
// (xfsprogs mkfs/proto.c): a boot image line, a block and inode count
// line, the root directory, then "name type+mode uid gid [source]" per
// entry, "$" closing each directory. xfsprogs 6.1 has no option to copy a
// directory, so this is how an xfs filesystem gets its contents. Owners
// and device numbers come from the staging session's view of the tree,
// not from the disk, where they are the build user's.
func writeProtofile(file, root string, entries []stage.Entry) error {
	children := map[string][]stage.Entry{}
	var top *stage.Entry
	for i, e := range entries {
		if e.Path == "." {
			top = &entries[i]
			continue
		}
		if strings.ContainsAny(path.Base(e.Path), " \t\n") {
			return fmt.Errorf("%s: mkfs.xfs protofiles cannot name files with whitespace", e.Path)
		}
		dir := path.Dir(e.Path)
		children[dir] = append(children[dir], e)
	}
	if top == nil {
		return fmt.Errorf("the staged tree has no root entry")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "/dev/null\n0 0\n%s %d %d\n", protoMode(top.Mode), top.UID, top.GID)
	protoDir(&b, root, ".", children, 1)
	b.WriteString("$\n")
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// protoDir writes the entries of dir; entries come sorted by path, so
// each directory's children are in name order.
func protoDir(b *strings.Builder, root, dir string, children map[string][]stage.Entry, depth int) {
	indent := strings.Repeat(" ", depth)
	for _, e := range children[dir] {
		fmt.Fprintf(b, "%s%s %s %d %d", indent, path.Base(e.Path), protoMode(e.Mode), e.UID, e.GID)
		switch e.Mode & modeType {
		case modeSymlink:
			fmt.Fprintf(b, " %s\n", e.Target)
		case modeDir:
			b.WriteString("\n")
			protoDir(b, root, e.Path, children, depth+1)
			fmt.Fprintf(b, "%s$\n", indent)
		case modeChar, modeBlock:
			fmt.Fprintf(b, " %d %d\n", e.Major, e.Minor)
		case modeFIFO, modeSocket:
			b.WriteString("\n")
		default:
			fmt.Fprintf(b, " %s\n", filepath.Join(root, filepath.FromSlash(e.Path)))
		}
	}
}

// protoMode is the protofile's type, setuid, setgid and octal permission
// field: "-u-755", "d--755", "l--777", "c--666", ...
func protoMode(mode uint32) string {
	t := byte('-')
	switch mode & modeType {
	case modeDir:
		t = 'd'
	case modeSymlink:
		t = 'l'
	case modeChar:
		t = 'c'
	case modeBlock:
		t = 'b'
	case modeFIFO:
		t = 'p'
	}
	u, g := byte('-'), byte('-')
	if mode&modeSetuid != 0 {
		u = 'u'
	}
	if mode&modeSetgid != 0 {
		g = 'g'
	}
	return fmt.Sprintf("%c%c%c%03o", t, u, g, mode&0o777)
}

// xfsModeFixups returns the xfs_db commands that give sticky entries
// their full mode: the protofile's mode field has no room for the sticky
// bit.
func xfsModeFixups(entries []stage.Entry) []string {
	var args []string
	for _, e := range entries {
		if e.Mode&modeSticky == 0 {
			continue
		}
		p := "/"
		if e.Path != "." {
			p += e.Path
		}
		args = append(args, "-c", "path "+p, "-c", fmt.Sprintf("write core.mode 0%o", e.Mode))
	}
	return args
}
