package recipes

import (
	"sort"

	"github.com/fsbench/fsbench/internal/suggest"
)

// catalogue lists every recipe with the function that builds it, in the
// order All presents them. Building on each Lookup keeps the catalogue
// immutable: nothing a caller does to a Recipe reaches another caller.
// Adding a test means adding its file and one line here, and its target
// side in package runner (see docs/recipes.md).
var catalogue = []struct {
	name  string
	build func() *Recipe
}{
	{"fio", newFio},
	{"flash_info", newFlashInfo},
	{"boot_time", newBootTime},
	{"mount_time", newMountTime},
	{"fsck_time", newFsckTime},
	{"mkfs_stats", newMkfsStats},
	{"dd_sweep", newDDSweep},
	{"fsync_latency", newFsyncLatency},
	{"small_files", newSmallFiles},
	{"sqlite_tps", newSQLiteTPS},
	{"endurance", newEndurance},
	{"power_loss", newPowerLoss},
	{"dm_flakey", newDMFlakey},
	{"update", newUpdate},
	{"crash_states", newCrashStates},
}

// Lookup returns a fresh copy of the recipe called name.
func Lookup(name string) (*Recipe, bool) {
	for _, e := range catalogue {
		if e.name == name {
			return e.build(), true
		}
	}
	return nil, false
}

// Names returns the recipe names, sorted.
func Names() []string {
	names := make([]string, 0, len(catalogue))
	for _, e := range catalogue {
		names = append(names, e.name)
	}
	sort.Strings(names)
	return names
}

// Suggest returns the recipe name closest to name, for a "did you mean"
// after an unknown recipe, or "" when none is close enough to help.
func Suggest(name string) string { return suggest.Closest(name, Names()) }
