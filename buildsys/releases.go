package buildsys

// Release is a build-system release fsbench supports, with the Go
// toolchain it builds fsbench with. go.mod's go line may not be newer
// than the oldest of them: these builds run with GOTOOLCHAIN=local and no
// network, so the go command cannot fetch a newer toolchain.
type Release struct {
	System string // "yocto" or "buildroot"
	Name   string // the series name (LAYERSERIES_COMPAT) or the branch
	Go     string // the release's Go, major.minor.patch
}

// Releases are the supported releases. The Yocto ones are the layer's
// LAYERSERIES_COMPAT: wrynose is the LTS, whinlatter the release before
// it, the first whose Go (1.25) builds fsbench, and blacksail the one in
// development after it (openembedded-core master). scarthgap, with Go
// 1.22, cannot build fsbench. Buildroot's are the branches whose Go is
// 1.25 or newer and whose kernel headers the QEMU defconfigs use:
// 2026.02.x, the LTS, and 2026.05.x.
var Releases = []Release{
	{"yocto", "whinlatter", "1.25.9"},
	{"yocto", "wrynose", "1.26.5"},
	{"yocto", "blacksail", "1.26.6"},
	{"buildroot", "2026.02.x", "1.26.3"},
	{"buildroot", "2026.05.x", "1.26.5"},
}
