package cli

import (
	"runtime/debug"
	"strings"
)

// version is what fsbench says it is: the version the build system
// stamped in (Version, from git describe in scripts/install.sh, the
// Buildroot and Yocto recipes), else the module version `go install
// ...@vX` records, else the commit `go build` in a git checkout records
// ("a50c493" with "-dirty" for uncommitted changes); "dev" when none is
// known.
func version() string {
	if Version != "dev" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return Version
	}
	return strings.TrimSpace(rev[:min(len(rev), 12)]) + dirty
}
