package initramfs

import (
	"fmt"
	"strings"
)

// cleanPath returns p in archive form, without a leading "/", or an error if
// the kernel could unpack it somewhere unexpected or it is ambiguous. It does
// not silently normalize "a//b" or "a/./b": a caller writing those has a bug
// that would otherwise surface as a second, differently spelled entry.
func cleanPath(p string) (string, error) {
	rel := strings.TrimPrefix(p, "/")
	if rel == "" {
		return "", fmt.Errorf("initramfs: empty path %q", p)
	}
	if strings.IndexByte(rel, 0) >= 0 {
		return "", fmt.Errorf("initramfs: path %q contains NUL", p)
	}
	if rel == trailerName {
		return "", fmt.Errorf("initramfs: path %q is the cpio trailer name", p)
	}
	for _, c := range strings.Split(rel, "/") {
		switch c {
		case "", ".", "..":
			return "", fmt.Errorf("initramfs: path %q has an empty, \".\" or \"..\" component", p)
		}
	}
	return rel, nil
}

// parent returns the directory containing rel, or "" for a top-level name.
func parent(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
