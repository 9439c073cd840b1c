package stage

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// makeReadable gives regular files without an owner read bit a real
// mode the build user can read, while the session keeps their mode.
//
// GNU tar creates a file with the owner's bits of its mode and then adds
// the rest with fchmod, which libfakeroot records and applies to the disk
// with at least 0600 added. A mode with no group or other bits needs no
// fchmod, so 0000, 0100, 0200 and 0300 stay on disk as they are, and an
// unprivileged mkfs, whose reads the kernel checks for real, fails with
// EACCES. chmod(1) in the session records the same mode in faked and
// makes the file 0600 or more on disk.
func (t *Tree) makeReadable(ctx context.Context, m *manifest) error {
	byMode := map[int64][]string{}
	for p, r := range m.paths {
		if r.reg && r.mode&0o400 == 0 {
			byMode[r.mode] = append(byMode[r.mode], p)
		}
	}
	for mode, paths := range byMode {
		sort.Strings(paths)
		for len(paths) > 0 {
			n := min(len(paths), 500)
			argv := append([]string{"chmod", fmt.Sprintf("%04o", mode), "--"}, paths[:n]...)
			cmd := t.Command(ctx, argv, nil)
			cmd.Dir = t.Root
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("stage: chmod: %v\n%s", err, strings.TrimSpace(string(out)))
			}
			paths = paths[n:]
		}
	}
	return nil
}
