package recipes

import (
	"sort"

	"github.com/fsbench/fsbench/internal/suggest"
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
func Suggest(name string) string { return suggest.Closest(name, Names()) }
