package debpkg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// apt-cache reads every package list before it answers, which takes
// seconds where apt keeps no binary cache of them (Docker's Debian images
// set Dir::Cache::pkgcache ""), and a build asks the same questions every
// time. So answers are kept under the cache directory, in a directory
// named for apt's state: its whole configuration and the name, size and
// time of every file it reads packages and policy from. `apt-get update`
// or a changed source or pin makes another state, whose answers are
// asked afresh; the old state's answers are removed then.

// answersDir is the directory of a cache that holds apt's answers.
const answersDir = "apt-answers"

// aptCacheShow runs `apt-cache show --no-all-versions pkgs...` through
// aptCache.
func aptCacheShow(ctx context.Context, cacheDir string, pkgs []string) ([]byte, error) {
	return aptCache(ctx, cacheDir, append([]string{"show", "--no-all-versions"}, pkgs...)...)
}

// aptCache runs `apt-cache args...`, or returns its output from an
// earlier run in the same apt state. An empty cacheDir keeps nothing.
// Failures are never kept.
func aptCache(ctx context.Context, cacheDir string, args ...string) ([]byte, error) {
	if cacheDir == "" {
		return run(ctx, "", "apt-cache", args...)
	}
	state, err := aptState(ctx)
	if err != nil {
		// apt's state cannot be told: nothing kept can be trusted.
		return run(ctx, "", "apt-cache", args...)
	}
	sum := sha256.Sum256([]byte(strings.Join(append([]string{"apt-cache"}, args...), "\x00")))
	dir := filepath.Join(cacheDir, answersDir, state)
	path := filepath.Join(dir, hex.EncodeToString(sum[:16]))
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	}
	out, err := run(ctx, "", "apt-cache", args...)
	if err != nil {
		return nil, err
	}
	// Keeping the answer only saves time: if it cannot be kept, the next
	// build asks apt again.
	_ = keepAnswer(dir, path, out)
	return out, nil
}

// keepAnswer writes b to path atomically and removes the answers of
// every other apt state.
func keepAnswer(dir, path string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".answer-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	parent := filepath.Dir(dir)
	states, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	for _, s := range states {
		if s.Name() != filepath.Base(dir) {
			os.RemoveAll(filepath.Join(parent, s.Name()))
		}
	}
	return nil
}

// aptState names the state apt answers from: a digest of `apt-config
// dump` (which includes the architectures dpkg is configured for) and of
// the files it reads packages, sources, pins and installed versions from.
func aptState(ctx context.Context) (string, error) {
	dump, err := run(ctx, "", "apt-config", "dump")
	if err != nil {
		return "", err
	}
	out, err := run(ctx, "", "apt-config", "shell",
		"LISTS", "Dir::State::lists/d", "STATUS", "Dir::State::status/f",
		"SOURCES", "Dir::Etc::sourcelist/f", "SOURCEPARTS", "Dir::Etc::sourceparts/d",
		"PREFS", "Dir::Etc::preferences/f", "PREFPARTS", "Dir::Etc::preferencesparts/d")
	if err != nil {
		return "", err
	}
	paths, err := shellValues(out)
	if err != nil {
		return "", err
	}
	var files, dirs []string
	for _, k := range []string{"STATUS", "SOURCES", "PREFS"} {
		files = append(files, paths[k])
	}
	for _, k := range []string{"LISTS", "SOURCEPARTS", "PREFPARTS"} {
		dirs = append(dirs, paths[k])
	}
	return stateDigest(dump, files, dirs)
}

// shellValues parses `apt-config shell` output: NAME='value' lines, in
// which a single quote of the value is closed, escaped and reopened.
func shellValues(out []byte) (map[string]string, error) {
	vals := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, v, ok := strings.Cut(line, "=")
		if !ok || len(v) < 2 || v[0] != '\'' || v[len(v)-1] != '\'' {
			return nil, fmt.Errorf("apt-config shell: unexpected line %q", line)
		}
		vals[name] = strings.ReplaceAll(v[1:len(v)-1], `'\''`, `'`)
	}
	return vals, nil
}

// stateDigest digests config and the name, size and modification time of
// each of files (a missing one counts as missing) and of the regular
// files directly in each of dirs. Empty paths are skipped.
func stateDigest(config []byte, files, dirs []string) (string, error) {
	h := sha256.New()
	h.Write(config)
	h.Write([]byte{0})
	stamp := func(path string, fi fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", path, fi.Size(), fi.ModTime().UnixNano())
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		fi, err := os.Stat(f)
		switch {
		case err == nil:
			stamp(f, fi)
		case os.IsNotExist(err):
			fmt.Fprintf(h, "%s\x00missing\x00", f)
		default:
			return "", err
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil && !os.IsNotExist(err) {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", d, len(entries))
		for _, e := range entries { // sorted by name
			if !e.Type().IsRegular() || e.Name() == "lock" {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				return "", err
			}
			stamp(filepath.Join(d, e.Name()), fi)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}
