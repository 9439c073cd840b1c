// Package suggest finds the name a user most likely meant, for the "did
// you mean" of error messages. It depends on the standard library and the
// architecture names of package arch only, so every package can use it.
// It only proposes: it must never pick a name for the user.
package suggest

import (
	"sort"
	"strings"

	"github.com/fsbench/fsbench/wire/arch"
)

// Closest picks the candidate a user most likely meant. Case, "_" and "-" are
// ignored ("boottime", "Boot-Time"); a unique candidate that starts with what
// was typed wins ("fsync" → "fsync_latency"); otherwise the smallest edit
// distance wins if it is at most a third of the candidate's length (at least
// 2). Ties go to the candidate whose first differing character is nearest
// to the typed one ("ext5" -> "ext4", not "ext2"), then to the first in
// sorted order. It returns "" when
// nothing is close enough to help.
func Closest(name string, candidates []string) string {
	if alias, ok := aliases[normalize(name)]; ok {
		for _, c := range candidates {
			if c == alias {
				return c
			}
		}
	}
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	n := normalize(name)
	if n == "" {
		return ""
	}
	var prefixed []string
	for _, c := range sorted {
		if normalize(c) == n {
			return c
		}
		if strings.HasPrefix(normalize(c), n) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 && len(n) >= 2 {
		return prefixed[0]
	}
	best, bestDist := "", -1
	for _, c := range sorted {
		nc := normalize(c)
		d := levenshtein(n, nc)
		if d > max(2, len(nc)/3) {
			continue
		}
		if bestDist < 0 || d < bestDist || d == bestDist && nearer(n, nc, normalize(best)) {
			best, bestDist = c, d
		}
	}
	return best
}

// aliases are other names for the same thing that no edit distance finds,
// by their normalized spelling: the architecture names of other toolchains
// and distributions (package arch knows them all), and FAT's names.
var aliases = func() map[string]string {
	m := map[string]string{"fat": "vfat", "fat32": "vfat", "msdos": "vfat"}
	for other, name := range arch.Spellings() {
		m[normalize(other)] = name
	}
	return m
}()

func normalize(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(s)
}

// levenshtein counts the single-rune insertions, deletions and substitutions
// that turn a into b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// nearer reports whether a differs from typed by a nearer character than b
// does, at the first position where each differs from typed.
func nearer(typed, a, b string) bool {
	return firstGap(typed, a) < firstGap(typed, b)
}

func firstGap(typed, c string) int {
	rt, rc := []rune(typed), []rune(c)
	for i := 0; i < len(rt) && i < len(rc); i++ {
		if rt[i] != rc[i] {
			gap := int(rt[i]) - int(rc[i])
			if gap < 0 {
				gap = -gap
			}
			return gap
		}
	}
	return 1 << 30
}
