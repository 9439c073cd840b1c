package imagegen

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/internal/testenv"
)

// TestToolVersionCache: a version is asked once per binary and kept; a
// replaced binary is asked again, and its old entry goes.
func TestToolVersionCache(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	tool := filepath.Join(bin, "fsbench-test-tool")
	install := func(version string) {
		t.Helper()
		// A new file renamed over the old one, as dpkg installs.
		tmp := tool + ".new"
		if err := os.WriteFile(tmp, []byte("#!/bin/sh\necho 'fsbench-test-tool "+version+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, tool); err != nil {
			t.Fatal(err)
		}
	}
	cacheFile := filepath.Join(t.TempDir(), "cache", "tool-versions.json")
	ctx := context.Background()
	names := []string{"fsbench-test-tool", "fsbench-test-missing"}

	install("1.0")
	got := cachedVersions(ctx, names, func(string) []string { return nil }, cacheFile)
	if got["fsbench-test-tool"] != "fsbench-test-tool 1.0" || got["fsbench-test-missing"] != "not installed" {
		t.Fatalf("versions = %v", got)
	}
	cache := readVersionCache(cacheFile)
	if len(cache) != 1 {
		t.Fatalf("cache = %v, want one entry", cache)
	}
	// A hit does not run the tool: what the cache says is the answer.
	for k := range cache {
		cache[k] = "from the cache"
	}
	b, _ := json.Marshal(cache)
	if err := os.WriteFile(cacheFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cachedVersions(ctx, names, func(string) []string { return nil }, cacheFile); got["fsbench-test-tool"] != "from the cache" {
		t.Errorf("second ask: %q, want the cached answer", got["fsbench-test-tool"])
	}

	install("2.0")
	if got := cachedVersions(ctx, names, func(string) []string { return nil }, cacheFile); got["fsbench-test-tool"] != "fsbench-test-tool 2.0" {
		t.Errorf("after replacing the binary: %q, want 2.0", got["fsbench-test-tool"])
	}
	cache = readVersionCache(cacheFile)
	if len(cache) != 1 {
		t.Errorf("cache after an upgrade = %v, want only the new binary", cache)
	}
	for k, v := range cache {
		if !strings.HasPrefix(k, tool+" ") || v != "fsbench-test-tool 2.0" {
			t.Errorf("cache entry %q = %q", k, v)
		}
	}

	// An unreadable cache is only a slower build.
	if err := os.WriteFile(cacheFile, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cachedVersions(ctx, names, func(string) []string { return nil }, cacheFile); got["fsbench-test-tool"] != "fsbench-test-tool 2.0" {
		t.Errorf("with a corrupt cache: %q", got["fsbench-test-tool"])
	}
}

// Every host tool of the catalogue answers with a version, not its usage
// or help: the manifest records what made each image.
func TestEveryToolReportsItsVersion(t *testing.T) {
	for _, name := range filesystems.Names() {
		typ, _ := filesystems.Lookup(name)
		for _, tool := range typ.Tools {
			path := testenv.Tool(t, tool)
			prog, _ := typ.Program(tool)
			v := toolVersion(context.Background(), path, prog.Version)
			if !versionPattern.MatchString(v) || strings.Contains(strings.ToLower(v), "usage") || len(v) > 80 {
				t.Errorf("%s (%s): version %q", tool, name, v)
			}
		}
	}
}

func TestVersionLine(t *testing.T) {
	for out, want := range map[string]string{
		"mkfs.vfat: unrecognized option '--version'\nUsage: mkfs.vfat [OPTIONS] TARGET [BLOCKS]\n  -F SIZE  Select FAT size SIZE (12, 16 or 32)\n\nmkfs.fat 4.2 (2021-01-31)\n": "mkfs.fat 4.2 (2021-01-31)",
		"\tError: Unknown option ?\n\nUsage: mkfs.f2fs [options] device [sectors]\n  -a heap-based allocation [default:0]\n":                                                    "",
		"btrfs-progs v6.2\n": "btrfs-progs v6.2",
		"Got 0 bytes instead of 512 at 0\nfsck.fat 4.2 (2021-01-31)\n": "fsck.fat 4.2 (2021-01-31)",
	} {
		if got := versionLine(out); got != want {
			t.Errorf("versionLine(%q) = %q, want %q", out, got, want)
		}
	}
}
