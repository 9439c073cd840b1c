package imagegen

import (
	"fmt"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/imagegen/stage"
)

// checkLosses refuses a staged tree that holds something the type's
// populate step would drop or change, naming the first few entries: an
// image that silently differs from its contents is worse than no image.
func checkLosses(typ *filesystems.Type, entries []stage.Entry) error {
	l := typ.Loses
	var bad []string
	for _, e := range entries {
		what := ""
		switch e.Mode & modeType {
		case modeSymlink:
			if l.Symlinks {
				what = "a symlink"
			}
		case modeChar, modeBlock:
			if l.Devices {
				what = "a device node"
			}
		case modeFIFO:
			if l.FIFOs {
				what = "a FIFO"
			}
		case modeSocket:
			if l.Sockets {
				what = "a socket"
			}
		}
		if what == "" && l.NonBMPNames && hasNonBMP(e.Path) {
			what = "a name with characters past U+FFFF"
		}
		if what != "" {
			bad = append(bad, fmt.Sprintf("/%s (%s)", strings.TrimPrefix(e.Path, "./"), what))
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
		typ.Name, strings.Join(bad, ", "), more, l.Why)
}

func hasNonBMP(s string) bool {
	for _, r := range s {
		if r > 0xffff {
			return true
		}
	}
	return false
}
