package imagegen

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/imagegen/stage"
)

// checkLosses refuses a staged tree that holds something the type's
// populate step would drop or change, naming the first few entries: an
// image that silently differs from its contents is worse than no image.
func checkLosses(typ *filesystems.Type, entries []stage.Entry) error {
	var bad, why []string
	because := func(reason string) {
		if !slices.Contains(why, reason) {
			why = append(why, reason)
		}
	}
	// Directory and name key -> the first entry. Two directories with one
	// key are one directory, which holds both's entries.
	first := map[string]stage.Entry{}
	for _, e := range entries {
		at := "/" + strings.TrimPrefix(e.Path, "./")
		if what := lostKind(typ.Loses, e.Mode); what != "" {
			bad = append(bad, fmt.Sprintf("%s (%s)", at, what))
			because(typ.Loses.Why)
			continue
		}
		if e.Path == "." {
			continue
		}
		name := path.Base(e.Path)
		if p := typ.NameProblem(name); p != "" {
			bad = append(bad, fmt.Sprintf("%s (a name that %s)", at, p))
			because(typ.Names.Why)
			continue
		}
		key := path.Dir(e.Path) + "/" + typ.NameKey(name)
		f, ok := first[key]
		if !ok {
			first[key] = e
			continue
		}
		if f.Mode&modeType != modeDir || e.Mode&modeType != modeDir {
			bad = append(bad, fmt.Sprintf("%s (the same name as /%s)", at, strings.TrimPrefix(f.Path, "./")))
			because(typ.Name + " compares names without case")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	more := ""
	if len(bad) > 5 {
		more = fmt.Sprintf(" and %d more", len(bad)-5)
		bad = bad[:5]
	}
	return fmt.Errorf("%s cannot keep %s%s: %s; remove them from the contents or choose another filesystem",
		typ.Name, strings.Join(bad, ", "), more, strings.Join(why, "; "))
}

// lostKind names the kind of entry mode, when the populate step cannot
// store that kind.
func lostKind(l filesystems.Losses, mode uint32) string {
	switch mode & modeType {
	case modeSymlink:
		if l.Symlinks {
			return "a symlink"
		}
	case modeChar, modeBlock:
		if l.Devices {
			return "a device node"
		}
	case modeFIFO:
		if l.FIFOs {
			return "a FIFO"
		}
	case modeSocket:
		if l.Sockets {
			return "a socket"
		}
	}
	return ""
}
