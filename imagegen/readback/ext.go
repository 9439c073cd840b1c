package readback

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// readExt reads an ext2/3/4 image with debugfs, opened read-only: `ls -p`
// level by level from the root inode, `stat` for every inode, then `dump`
// and `ea_get -f` into a temporary directory for data, slow symlink
// targets and xattr values. Each step is one debugfs process reading a
// command script. Commands name inodes as <N>, so no file name from the
// image reaches debugfs's command parser; xattr names and temporary paths
// are quoted.
func readExt(ctx context.Context, _, image string) (Listing, error) {
	d := &debugfs{ctx: ctx, image: image}
	tmp, err := os.MkdirTemp("", "readback-ext-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	entries, inos, err := walkExt(d)
	if err != nil {
		return nil, err
	}
	// One stat per inode: device numbers, fast symlink targets, xattr
	// names.
	var unique []uint64
	first := map[uint64]int{}
	for i, ino := range inos {
		if _, ok := first[ino]; !ok {
			first[ino] = i
			unique = append(unique, ino)
		}
	}
	stats, err := statExt(d, unique, func(ino uint64) Entry { return entries[first[ino]] })
	if err != nil {
		return nil, err
	}
	// Data, slow symlink targets and xattr values.
	results := map[uint64]*Entry{}
	var jobs []dumpJob
	for _, ino := range unique {
		r := &Entry{}
		results[ino] = r
		jobs = append(jobs, dumpJobs(tmp, ino, entries[first[ino]], stats[ino], r)...)
	}
	if err := runDumps(d, jobs); err != nil {
		return nil, err
	}
	keys := make([]*inodeKey, len(entries))
	for i := range entries {
		ino := inos[i]
		e := &entries[i]
		r := results[ino]
		if e.Type == File {
			e.SHA256 = r.SHA256
			keys[i] = &inodeKey{0, ino}
		}
		if e.Type == Symlink {
			e.Target = r.Target
			e.Size = 0
		}
		if e.Type == Char || e.Type == Block {
			st := stats[ino]
			e.Major, e.Minor = st.major, st.minor
		}
		e.Xattrs = append([]string(nil), r.Xattrs...)
	}
	return finish(entries, keys), nil
}

// walkExt lists the filesystem breadth first, one debugfs run per level
// of directories, and returns its entries and their inodes.
func walkExt(d *debugfs) ([]Entry, []uint64, error) {
	var entries []Entry
	var inos []uint64
	type dir struct {
		ino  uint64
		path string
	}
	seen := map[uint64]bool{extRootIno: true}
	level := []dir{{extRootIno, "/"}}
	for len(level) > 0 {
		cmds := make([]string, len(level))
		for i, dr := range level {
			cmds[i] = fmt.Sprintf("ls -p <%d>", dr.ino)
		}
		outs, err := d.run(cmds)
		if err != nil {
			return nil, nil, err
		}
		var next []dir
		for i, dr := range level {
			recs, err := parseLsP(outs[i])
			if err != nil {
				return nil, nil, fmt.Errorf("debugfs ls -p of %s: %w", dr.path, err)
			}
			for _, r := range recs {
				// Inode 0 is an unused slot (lost+found's preallocated
				// blocks list some).
				if r.ino == 0 || r.name == ".." || (r.name == "." && dr.path != "/") {
					continue
				}
				p := dr.path
				if r.name != "." {
					if strings.Contains(r.name, "/") || r.name == "" {
						return nil, nil, fmt.Errorf("debugfs lists an impossible name %q in %s", r.name, dr.path)
					}
					p = path.Join(dr.path, r.name)
				}
				e, err := extEntry(p, r)
				if err != nil {
					return nil, nil, err
				}
				entries = append(entries, e)
				inos = append(inos, r.ino)
				if e.Type == Dir && r.name != "." {
					if seen[r.ino] {
						return nil, nil, fmt.Errorf("directory inode %d appears twice (at %s)", r.ino, p)
					}
					seen[r.ino] = true
					next = append(next, dir{r.ino, p})
				}
			}
		}
		level = next
	}
	return entries, inos, nil
}

// statExt stats every inode in one debugfs run; entry gives an inode's
// first entry, for messages and sizes.
func statExt(d *debugfs, inos []uint64, entry func(uint64) Entry) (map[uint64]extStat, error) {
	cmds := make([]string, len(inos))
	for i, ino := range inos {
		cmds[i] = fmt.Sprintf("stat <%d>", ino)
	}
	outs, err := d.run(cmds)
	if err != nil {
		return nil, err
	}
	stats := map[uint64]extStat{}
	for i, ino := range inos {
		e := entry(ino)
		st, err := parseStat(outs[i], ino, e)
		if err != nil {
			return nil, fmt.Errorf("debugfs stat of %s: %w", e.Path, err)
		}
		stats[ino] = st
	}
	return stats, nil
}

// dumpJob is one debugfs command that writes a file, and what to do with
// it.
type dumpJob struct {
	cmd  string
	file string
	size int64
	read bool // done gets the file's content; else it reads the file itself
	done func([]byte) error
}

// dumpJobs are the commands that read inode ino's data, slow symlink
// target and xattr values into r.
func dumpJobs(tmp string, ino uint64, e Entry, st extStat, r *Entry) []dumpJob {
	var jobs []dumpJob
	dump := func(prefix string, read bool, done func([]byte) error) {
		f := filepath.Join(tmp, fmt.Sprintf("%s%d", prefix, ino))
		jobs = append(jobs, dumpJob{fmt.Sprintf("dump <%d> %s", ino, quoteArg(f)), f, e.Size, read, done})
	}
	switch {
	case e.Type == File && st.inline:
		// debugfs 1.47.0 dumps an inline-data file's whole inline area
		// (60 bytes of i_block plus system.data) whatever its size; the
		// kernel reads i_size bytes of it, zeros beyond.
		dump("i", true, func(b []byte) error {
			if int64(len(b)) > e.Size {
				b = b[:e.Size]
			}
			h := sha256.New()
			h.Write(b)
			h.Write(make([]byte, e.Size-int64(len(b))))
			r.SHA256 = hex.EncodeToString(h.Sum(nil))
			return nil
		})
	case e.Type == File:
		f := filepath.Join(tmp, fmt.Sprintf("d%d", ino))
		dump("d", false, func([]byte) error {
			sum, n, err := hashFile(f)
			if err != nil {
				return err
			}
			if n != e.Size {
				return fmt.Errorf("debugfs dumped %d bytes of %s, whose size is %d", n, e.Path, e.Size)
			}
			r.SHA256 = sum
			return nil
		})
	case e.Type == Symlink && st.fastLink != nil:
		r.Target = *st.fastLink
	case e.Type == Symlink:
		dump("l", true, func(b []byte) error {
			if int64(len(b)) != e.Size {
				return fmt.Errorf("debugfs dumped %d bytes of the symlink %s, whose size is %d", len(b), e.Path, e.Size)
			}
			r.Target = string(b)
			return nil
		})
	}
	for k, name := range st.xattrs {
		f := filepath.Join(tmp, fmt.Sprintf("x%d.%d", ino, k))
		jobs = append(jobs, dumpJob{fmt.Sprintf("ea_get -f %s <%d> %s", quoteArg(f), ino, quoteArg(name.name)), f, name.size, true,
			func(b []byte) error {
				if int64(len(b)) != name.size {
					return fmt.Errorf("debugfs wrote %d bytes of xattr %s of %s, whose size is %d", len(b), name.name, e.Path, name.size)
				}
				r.Xattrs = append(r.Xattrs, XattrString(name.name, b))
				return nil
			}})
	}
	return jobs
}

// runDumps runs the jobs in batches, so that the temporary directory
// never holds much more than batchBytes.
func runDumps(d *debugfs, jobs []dumpJob) error {
	for len(jobs) > 0 {
		n, total := 0, int64(0)
		for n < len(jobs) && (n == 0 || (total+jobs[n].size <= batchBytes && n < batchCommands)) {
			total += jobs[n].size
			n++
		}
		batch := jobs[:n]
		jobs = jobs[n:]
		cmds := make([]string, len(batch))
		for i, j := range batch {
			cmds[i] = j.cmd
		}
		if _, err := d.run(cmds); err != nil {
			return err
		}
		for _, j := range batch {
			var b []byte
			if j.read {
				var err error
				if b, err = os.ReadFile(j.file); err != nil {
					return err
				}
			}
			if err := j.done(b); err != nil {
				return err
			}
			if err := os.Remove(j.file); err != nil {
				return err
			}
		}
	}
	return nil
}

const (
	extRootIno        = 2
	extInlineDataFlag = 0x10000000
	// batchBytes and batchCommands bound one dump batch.
	batchBytes    = 256 << 20
	batchCommands = 4096
)

// debugfs runs command scripts against one image.
type debugfs struct {
	ctx   context.Context
	image string
}

// run runs cmds in one read-only debugfs session and returns what each
// printed. debugfs echoes every command of a script as "debugfs: CMD" on
// standard output, which splits the output; its errors go to standard
// error, which must hold nothing but its version banner.
func (d *debugfs) run(cmds []string) ([]string, error) {
	if len(cmds) == 0 {
		return nil, nil
	}
	for _, c := range cmds {
		if strings.ContainsAny(c, "\n\r") {
			return nil, fmt.Errorf("debugfs command %q spans lines", c)
		}
	}
	script := []byte(strings.Join(cmds, "\n") + "\n")
	env := []string{"DEBUGFS_PAGER=__none__", "PAGER=__none__", "LC_ALL=C"}
	out, stderr, err := runTool(d.ctx, env, script, "debugfs", "-f", "-", d.image)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		if line != "" && !strings.HasPrefix(line, "debugfs ") {
			return nil, fmt.Errorf("debugfs on %s: %s", d.image, strings.TrimSpace(string(stderr)))
		}
	}
	res := make([]string, len(cmds))
	text := string(out)
	pos := 0
	for i, c := range cmds {
		marker := "debugfs: " + c + "\n"
		if !strings.HasPrefix(text[pos:], marker) {
			return nil, fmt.Errorf("debugfs output does not continue with %q", strings.TrimSpace(marker))
		}
		start := pos + len(marker)
		end := len(text)
		if i+1 < len(cmds) {
			// From the newline that ends this marker: an empty output
			// puts the next marker right after it.
			next := strings.Index(text[start-1:], "\ndebugfs: "+cmds[i+1]+"\n")
			if next < 0 {
				return nil, fmt.Errorf("debugfs output lacks the output of %q", cmds[i+1])
			}
			end = start + next
		}
		res[i] = text[start:end]
		pos = end
	}
	return res, nil
}

// quoteArg quotes an argument for debugfs's command parser (libss): a
// double-quoted string in which "" is a quote.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// lsRecord is one line of `ls -p`: /ino/mode/uid/gid/name/size/ (size
// empty for directories).
type lsRecord struct {
	ino      uint64
	mode     uint32
	uid, gid uint32
	name     string
	size     int64
}

var (
	lsStart = regexp.MustCompile(`^/\d+/[0-7]+/-?\d+/-?\d+/`)
	lsLine  = regexp.MustCompile(`(?s)^/(\d+)/([0-7]+)/(-?\d+)/(-?\d+)/(.*)/(\d*)/$`)
)

// parseLsP parses `ls -p` output. A name may hold a newline: a line that
// does not start a record continues the previous one.
func parseLsP(out string) ([]lsRecord, error) {
	var lines []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case lsStart.MatchString(line):
			lines = append(lines, line)
		case len(lines) > 0:
			lines[len(lines)-1] += "\n" + line
		case line == "":
		default:
			return nil, fmt.Errorf("unexpected output %q", line)
		}
	}
	var recs []lsRecord
	for _, line := range lines {
		m := lsLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("unexpected record %q", line)
		}
		ino, err1 := strconv.ParseUint(m[1], 10, 64)
		mode, err2 := strconv.ParseUint(m[2], 8, 32)
		uid, err3 := strconv.ParseInt(m[3], 10, 64)
		gid, err4 := strconv.ParseInt(m[4], 10, 64)
		var size int64
		var err5 error
		if m[6] != "" {
			size, err5 = strconv.ParseInt(m[6], 10, 64)
		}
		for _, err := range []error{err1, err2, err3, err4, err5} {
			if err != nil {
				return nil, fmt.Errorf("unexpected record %q: %w", line, err)
			}
		}
		// debugfs prints 32-bit ids with %d.
		recs = append(recs, lsRecord{ino: ino, mode: uint32(mode), uid: uint32(uid), gid: uint32(gid), name: m[5], size: size})
	}
	return recs, nil
}

// extEntry makes the entry of a record.
func extEntry(p string, r lsRecord) (Entry, error) {
	e := Entry{Path: p, Perm: r.mode & 0o7777, UID: r.uid, GID: r.gid, Holds: All}
	switch r.mode & 0o170000 {
	case 0o100000:
		e.Type, e.Size = File, r.size
	case 0o040000:
		e.Type = Dir
	case 0o120000:
		e.Type, e.Size = Symlink, r.size // the target's length, until read
	case 0o020000:
		e.Type = Char
	case 0o060000:
		e.Type = Block
	case 0o010000:
		e.Type = FIFO
	case 0o140000:
		e.Type = Socket
	default:
		return Entry{}, fmt.Errorf("%s: unknown file type in mode %#o", p, r.mode)
	}
	return e, nil
}

// extStat is what `stat` adds to `ls -p`.
type extStat struct {
	inline       bool // EXT4_INLINE_DATA_FL
	major, minor uint32
	fastLink     *string
	xattrs       []extXattr
}

type extXattr struct {
	name string
	size int64
}

var (
	statFlags  = regexp.MustCompile(`^Inode: \d+ +Type: [^\n]* Flags: 0x([0-9a-f]+)\n`)
	statDevice = regexp.MustCompile(`(?m)^(?:\(New-style\) )?Device major/minor number: (\d+):(\d+) `)
	statXattr  = regexp.MustCompile(`^  (.+?) \((\d+)\)(?: = .*)?$`)
	xattrName  = regexp.MustCompile(`^[!-~]+$`)
)

// parseStat reads the device numbers, the fast symlink target and the
// xattr names (without system.data, which is inline data) from `stat`.
func parseStat(out string, ino uint64, e Entry) (extStat, error) {
	var st extStat
	if !strings.HasPrefix(out, fmt.Sprintf("Inode: %d ", ino)) {
		return st, fmt.Errorf("unexpected output %.80q", out)
	}
	m := statFlags.FindStringSubmatch(out)
	if m == nil {
		return st, fmt.Errorf("no flags in %.120q", out)
	}
	flags, err := strconv.ParseUint(m[1], 16, 32)
	if err != nil {
		return st, err
	}
	st.inline = flags&extInlineDataFlag != 0
	if e.Type == Char || e.Type == Block {
		m := statDevice.FindStringSubmatch(out)
		if m == nil {
			return st, fmt.Errorf("no device numbers in %q", out)
		}
		major, _ := strconv.ParseUint(m[1], 10, 32)
		minor, _ := strconv.ParseUint(m[2], 10, 32)
		st.major, st.minor = uint32(major), uint32(minor)
	}
	if e.Type == Symlink {
		const marker = "\nFast link dest: \""
		if i := strings.Index(out, marker); i >= 0 {
			rest := out[i+len(marker):]
			n := int(e.Size)
			if len(rest) < n+1 || rest[n] != '"' {
				return st, fmt.Errorf("fast symlink target is not %d bytes: %.80q", n, rest)
			}
			t := rest[:n]
			st.fastLink = &t
		}
	}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if line != "Extended attributes:" {
			continue
		}
		for _, x := range lines[i+1:] {
			if !strings.HasPrefix(x, "  ") {
				break
			}
			m := statXattr.FindStringSubmatch(x)
			if m == nil || !xattrName.MatchString(m[1]) || strings.ContainsAny(m[1], `\"`) {
				return st, fmt.Errorf("cannot read the xattr line %q", x)
			}
			if m[1] == "system.data" {
				continue
			}
			size, _ := strconv.ParseInt(m[2], 10, 64)
			st.xattrs = append(st.xattrs, extXattr{name: m[1], size: size})
		}
		break
	}
	return st, nil
}
