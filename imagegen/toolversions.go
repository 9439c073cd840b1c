package imagegen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
)

// toolVersions asks every host tool the variant's filesystems use for its
// version, so that a result can be traced to the exact mkfs that made it.
// Answers are kept in cacheDir by the identity of the binary (see
// toolKey): a dozen --version runs would otherwise take CPU from the
// filesystems being built at the same time, on every build.
func toolVersions(ctx context.Context, v plan.Variant, cacheDir string) map[string]string {
	tools := map[string][]string{}
	for _, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Filesystem == nil {
				continue
			}
			if t, ok := filesystems.Lookup(p.Filesystem.Type); ok {
				for _, tool := range t.Tools {
					prog, _ := t.Program(tool)
					tools[tool] = prog.Version
				}
			}
		}
	}
	names := make([]string, 0, len(tools))
	for t := range tools {
		names = append(names, t)
	}
	sort.Strings(names)
	return cachedVersions(ctx, names, func(name string) []string { return tools[name] }, filepath.Join(cacheDir, versionCacheFile))
}

// versionCacheFile keeps the versions asked; its name changes with the
// way versions are read, so that an answer read the old way is not kept.
const versionCacheFile = "tool-versions-2.json"

// cachedVersions returns the version of each tool in names, from
// cacheFile when it knows the binary, and keeps what it had to ask for.
// args gives the arguments that make a tool print its version (nil: the
// usual flags).
func cachedVersions(ctx context.Context, names []string, args func(string) []string, cacheFile string) map[string]string {
	cache := readVersionCache(cacheFile)
	out := map[string]string{}
	changed := false
	for _, t := range names {
		path, err := exec.LookPath(t)
		if err != nil {
			out[t] = "not installed"
			continue
		}
		key, ok := toolKey(path)
		if v, hit := cache[key]; ok && hit {
			out[t] = v
			continue
		}
		out[t] = toolVersion(ctx, path, args(t))
		if ok && out[t] != "unknown" {
			for k := range cache {
				if strings.HasPrefix(k, path+" ") {
					delete(cache, k) // the binary it was read from is gone
				}
			}
			cache[key], changed = out[t], true
		}
	}
	if changed {
		// A cache that cannot be written only costs the next build time.
		if b, err := json.MarshalIndent(cache, "", "  "); err == nil && os.MkdirAll(filepath.Dir(cacheFile), 0o755) == nil {
			atomicfile.WriteFile(cacheFile, append(b, '\n'), 0o644)
		}
	}
	return out
}

// toolKey identifies the binary at path: its path, and the inode, size,
// mtime and ctime of the file it resolves to. Upgrading a package replaces
// the file (a new inode and ctime), so a cached version never outlives
// the binary it was read from. ok is false when the file cannot be
// identified, and then nothing is cached.
func toolKey(path string) (key string, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%s dev=%d ino=%d size=%d mtime=%d.%09d ctime=%d.%09d", path, st.Dev, st.Ino, st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), true
}

// readVersionCache returns the cached versions, or an empty cache when
// the file is missing or unreadable.
func readVersionCache(file string) map[string]string {
	cache := map[string]string{}
	if b, err := os.ReadFile(file); err == nil {
		if json.Unmarshal(b, &cache) != nil {
			cache = map[string]string{}
		}
	}
	return cache
}

// toolVersion runs the tool with args, or with each of the usual version
// flags when args is nil, and keeps the first line of its output that
// names a dotted version: tools disagree on the flag, on stdout vs stderr,
// and some print their version only beside their usage.
func toolVersion(ctx context.Context, path string, args []string) string {
	tries := [][]string{args}
	if args == nil {
		tries = [][]string{{"--version"}, {"-V"}, {"-version"}}
	}
	for _, a := range tries {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		out, _ := exec.CommandContext(ctx, path, a...).CombinedOutput()
		cancel()
		if v := versionLine(string(out)); v != "" {
			return v
		}
	}
	return "unknown"
}

// versionPattern is a dotted version number: 1.47.0, v6.2, 4.2.
var versionPattern = regexp.MustCompile(`\bv?\d+\.\d+`)

// versionLine is the first line of out that names a version, and no
// usage or error.
func versionLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		low := strings.ToLower(line)
		if line == "" || strings.HasPrefix(line, "-") || !versionPattern.MatchString(line) {
			continue
		}
		if strings.Contains(low, "usage") || strings.Contains(low, "invalid") || strings.Contains(low, "unrecognized") ||
			strings.Contains(low, "unknown option") || strings.Contains(low, "error") {
			continue
		}
		return line
	}
	return ""
}
