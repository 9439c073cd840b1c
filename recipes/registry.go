package recipes

import (
	"sort"
	"strings"
)

// catalogue maps each recipe name to the function that builds it. Building on
// each Lookup keeps the catalogue immutable: nothing a caller does to a Recipe
// reaches another caller. Adding a test means adding one file and one line.
var catalogue = map[string]func() *Recipe{
	"fio":           newFio,
	"boot_time":     newBootTime,
	"mount_time":    newMountTime,
	"fsck_time":     newFsckTime,
	"mkfs_stats":    newMkfsStats,
	"dd_sweep":      newDDSweep,
	"fsync_latency": newFsyncLatency,
	"sqlite_tps":    newSQLiteTPS,
	"small_files":   newSmallFiles,
	"power_loss":    newPowerLoss,
	"dm_flakey":     newDMFlakey,
}

// Lookup returns a fresh copy of the recipe called name.
func Lookup(name string) (*Recipe, bool) {
	build, ok := catalogue[name]
	if !ok {
		return nil, false
	}
	return build(), true
}

// Names returns the recipe names, sorted.
func Names() []string {
	names := make([]string, 0, len(catalogue))
	for n := range catalogue {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Suggest returns the recipe name closest to name, for a "did you mean"
// after an unknown recipe, or "" when none is close enough to help.
func Suggest(name string) string { return closest(name, Names()) }

// closest picks the candidate a user most likely meant. Case, "_" and "-" are
// ignored ("boottime", "Boot-Time"); a unique candidate that starts with what
// was typed wins ("fsync" → "fsync_latency"); otherwise the smallest edit
// distance wins if it is at most a third of the candidate's length (at least
// 2), ties going to the first name in sorted order.
func closest(name string, candidates []string) string {
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
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

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
