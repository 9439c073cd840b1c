package debpkg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// markerName is written into a cache entry last, after everything else is in
// place, and the entry is renamed into its final path only after that; an
// entry whose marker names the same Package is therefore complete.
const markerName = ".fsbench-package.json"

// Fetch returns the directory holding the unpacked data of p in cacheDir,
// downloading and unpacking it first when the cache does not hold it. The
// entry cacheDir/<name>_<version>_<arch>/ appears atomically: concurrent
// fetches of the same package each unpack into a temporary directory inside
// cacheDir and the first rename wins. check, when not nil, vets the unpacked
// tree before it enters the cache.
//
// Within one process, a fetch of a package that another goroutine is
// already fetching into the same cache waits for that one instead of
// downloading it again (two variants built at once need the same kernel).
func Fetch(ctx context.Context, log logrus.FieldLogger, cacheDir string, p Package, check func(dir string) error) (string, error) {
	if p.Name == "" || p.Version == "" || p.Arch == "" {
		return "", fmt.Errorf("incomplete package %+v", p)
	}
	final := filepath.Join(cacheDir, EntryName(p))
	if Cached(final, p) {
		log.Debugf("reusing %s", final)
		return final, nil
	}
	inflight.Lock()
	if c, ok := inflight.calls[final]; ok {
		inflight.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if errors.Is(c.err, context.Canceled) || errors.Is(c.err, context.DeadlineExceeded) {
			// The other fetch's caller gave up, not the download:
			// this one goes on with its own context.
			return Fetch(ctx, log, cacheDir, p, check)
		}
		return c.dir, c.err
	}
	c := &call{done: make(chan struct{})}
	inflight.calls[final] = c
	inflight.Unlock()
	c.dir, c.err = fetch(ctx, log, cacheDir, final, p, check)
	inflight.Lock()
	delete(inflight.calls, final)
	inflight.Unlock()
	close(c.done)
	return c.dir, c.err
}

// inflight holds the fetches under way in this process, by cache entry.
var inflight = struct {
	sync.Mutex
	calls map[string]*call
}{calls: map[string]*call{}}

type call struct {
	done chan struct{}
	dir  string
	err  error
}

// fetch downloads and unpacks p into the cache entry final.
func fetch(ctx context.Context, log logrus.FieldLogger, cacheDir, final string, p Package, check func(dir string) error) (string, error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cacheDir, ".fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)

	// apt-get download writes into its working directory; there is no
	// option for a target directory.
	log.Infof("downloading %s", p)
	if _, err := run(ctx, tmp, "apt-get", "download", p.String()); err != nil {
		return "", classify(err)
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s left %d .deb files, want 1", p, len(debs))
	}
	root := filepath.Join(tmp, "root")
	// dpkg -x only unpacks the data archive: no maintainer scripts, nothing
	// registered in the host's dpkg database.
	if _, err := run(ctx, tmp, "dpkg", "-x", debs[0], root); err != nil {
		return "", err
	}
	if check != nil {
		if err := check(root); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	marker, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, markerName), append(marker, '\n'), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(root, final); err != nil {
		// Lost a race with another fetch, or a stale entry without a
		// valid marker sits there.
		if Cached(final, p) {
			return final, nil
		}
		if rerr := os.RemoveAll(final); rerr != nil {
			return "", fmt.Errorf("removing stale %s: %w", final, rerr)
		}
		if err := os.Rename(root, final); err != nil {
			return "", err
		}
	}
	return final, nil
}

// EntryName is the cache directory name of p.
func EntryName(p Package) string {
	// Debian versions may contain ':' (epochs), which is awkward in paths.
	return strings.ReplaceAll(fmt.Sprintf("%s_%s_%s", p.Name, p.Version, p.Arch), ":", "%3a")
}

// Cached reports whether dir is a complete cache entry of p.
func Cached(dir string, p Package) bool {
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	if err != nil {
		return false
	}
	var got Package
	return json.Unmarshal(b, &got) == nil && got == p
}
