package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"
)

// Kernel is one unpacked Debian kernel package in the cache.
type Kernel struct {
	Version           // Package and PackageVersion are promoted from here
	Dir        string // cache entry: the root of the unpacked package
	Image      string // boot/vmlinuz-<release>, what QEMU's -kernel takes
	Config     string // boot/config-<release>
	Release    string // uname -r of the kernel, e.g. "6.1.0-57-amd64"
	ModulesDir string // lib/modules/<release>

	cfgOnce sync.Once
	cfg     map[string]string
	cfgErr  error

	modOnce sync.Once
	mods    map[string]string // normalised module name -> path relative to ModulesDir
	modErr  error
}

// markerName is written into a cache entry last, after everything else is in
// place, and the entry is renamed into its final path only after that; an
// entry with a marker that names the same Version is therefore complete.
const markerName = ".fsbench-kernel.json"

// Fetch returns the kernel v from cacheDir, downloading and unpacking it
// first if the cache does not hold it. The cache entry is
// cacheDir/<package>_<version>_<arch>/ and appears atomically: concurrent
// Fetches of the same version each unpack into a temporary directory inside
// cacheDir and the first rename wins.
func Fetch(ctx context.Context, log logrus.FieldLogger, cacheDir string, v Version) (*Kernel, error) {
	if v.Package == "" || v.PackageVersion == "" || v.DebArch == "" {
		return nil, fmt.Errorf("kernel: incomplete version %+v (use Resolve)", v)
	}
	final := filepath.Join(cacheDir, entryName(v))
	if k, err := open(final, v); err == nil {
		log.Debugf("kernel: reusing %s", final)
		return k, nil
	}

	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	// Inside cacheDir, so that the final rename stays on one filesystem.
	tmp, err := os.MkdirTemp(cacheDir, ".fetch-")
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	defer os.RemoveAll(tmp)

	// apt-get download writes into its working directory; there is no
	// option for a target directory.
	log.Infof("kernel: downloading %s", v)
	if _, err := run(ctx, tmp, "apt-get", "download", v.String()); err != nil {
		return nil, fmt.Errorf("kernel: %w", classify(err))
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "*.deb"))
	if len(debs) != 1 {
		return nil, fmt.Errorf("kernel: apt-get download %s left %d .deb files, want 1", v, len(debs))
	}
	root := filepath.Join(tmp, "root")
	// dpkg -x only unpacks the data archive: no maintainer scripts, nothing
	// registered in the host's dpkg database.
	if _, err := run(ctx, tmp, "dpkg", "-x", debs[0], root); err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	if _, err := describe(root, v); err != nil {
		return nil, err
	}
	marker, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, markerName), append(marker, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	if err := os.Rename(root, final); err != nil {
		// Lost a race with another Fetch, or a stale entry without a
		// valid marker sits there.
		if k, oerr := open(final, v); oerr == nil {
			return k, nil
		}
		if rerr := os.RemoveAll(final); rerr != nil {
			return nil, fmt.Errorf("kernel: removing stale %s: %w", final, rerr)
		}
		if err := os.Rename(root, final); err != nil {
			return nil, fmt.Errorf("kernel: %w", err)
		}
	}
	return open(final, v)
}

func entryName(v Version) string {
	// Debian versions may contain ':' (epochs), which is awkward in paths.
	return strings.ReplaceAll(fmt.Sprintf("%s_%s_%s", v.Package, v.PackageVersion, v.DebArch), ":", "%3a")
}

// open returns the cache entry dir if its marker says it holds v.
func open(dir string, v Version) (*Kernel, error) {
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	if err != nil {
		return nil, err
	}
	var got Version
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, fmt.Errorf("kernel: %s: %w", dir, err)
	}
	if got != v {
		return nil, fmt.Errorf("kernel: %s holds %s, not %s", dir, got, v)
	}
	return describe(dir, v)
}

// describe finds the files of an unpacked kernel package under dir.
func describe(dir string, v Version) (*Kernel, error) {
	images, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinuz-*"))
	if len(images) == 0 {
		// Some architectures name the image vmlinux.
		images, _ = filepath.Glob(filepath.Join(dir, "boot", "vmlinux-*"))
	}
	if len(images) != 1 {
		return nil, fmt.Errorf("kernel: %s: want one boot/vmlinuz-*, found %d", dir, len(images))
	}
	base := filepath.Base(images[0])
	release := base[strings.IndexByte(base, '-')+1:]
	k := &Kernel{
		Version:    v,
		Dir:        dir,
		Image:      images[0],
		Config:     filepath.Join(dir, "boot", "config-"+release),
		Release:    release,
		ModulesDir: filepath.Join(dir, "lib", "modules", release),
	}
	for _, p := range []string{k.Config, k.ModulesDir} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("kernel: %s: %w", v, err)
		}
	}
	return k, nil
}
