package stage

import (
	"context"
	"encoding/base64"
	"fmt"
	"os/exec"
	"path"
	"sort"
	"strings"
)

// setXattrs gives the tree its xattrs once tar is done, with setfattr in
// the session, because GNU tar cannot do it under fakeroot 1.31: to restore
// the xattrs of a regular file, tar 1.34 creates it with mknodat(path,
// 0644, 0), and libfakeroot records that mode as given, without S_IFREG.
// The file then has no type for every later stat in the session (mode
// 0644 instead of 0100644), and mke2fs -d skips it ("ignoring entry").
// setfattr only calls lsetxattr on files that exist, whose records are
// right; -h sets a symlink's own xattrs.
func (t *Tree) setXattrs(ctx context.Context, m *manifest) error {
	if len(m.xattrs) == 0 {
		return nil
	}
	paths := make([]string, 0, len(m.xattrs))
	for p := range m.xattrs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if _, err := exec.LookPath("setfattr"); err != nil {
		return fmt.Errorf("stage: %s has xattrs, and setting them without root needs setfattr (apt-get install attr)",
			path.Join("/", paths[0]))
	}
	// The dump format of getfattr. Names go in reverse order: faked puts
	// each new xattr at the head of its list, so listxattr, and so mke2fs
	// -d, which stores them in the order it lists them, see them sorted,
	// whatever the host. (Set for real, as root, they would come back in
	// the order the host filesystem keeps them: insertion order on ext4,
	// something else elsewhere.)
	var dump strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&dump, "# file: %s\n", quote(p))
		names := make([]string, 0, len(m.xattrs[p]))
		for n := range m.xattrs[p] {
			names = append(names, n)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(names)))
		for _, n := range names {
			fmt.Fprintf(&dump, "%s=0s%s\n", quote(n), base64.StdEncoding.EncodeToString([]byte(m.xattrs[p][n])))
		}
		dump.WriteString("\n")
	}
	cmd := t.Command(ctx, []string{"setfattr", "-h", "--restore=-"}, nil)
	cmd.Dir = t.Root
	cmd.Stdin = strings.NewReader(dump.String())
	out, err := cmd.CombinedOutput()
	if err == nil && len(out) > 0 {
		err = fmt.Errorf("it complained")
	}
	if err != nil {
		// fakeroot passes a name, a NUL and the value to faked in one
		// 1024-byte buffer; a larger xattr fails with ERANGE.
		return fmt.Errorf("stage: setting xattrs: setfattr: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// quote escapes a path or name as getfattr does, so that setfattr reads
// it back byte for byte: octal for anything but plain printable ASCII,
// and for the backslash and "=", which the format uses.
func quote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '\\' || c == '=' || c == '"' {
			fmt.Fprintf(&b, "\\%03o", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
