package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
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

// Fetch returns the kernel v from cacheDir, downloading and unpacking it
// first if the cache does not hold it (package debpkg: the entry is
// cacheDir/<package>_<version>_<arch>/ and appears atomically).
func Fetch(ctx context.Context, log logrus.FieldLogger, cacheDir string, v Version) (*Kernel, error) {
	if v.Package == "" || v.PackageVersion == "" || v.Arch.Debian() == "" {
		return nil, fmt.Errorf("kernel: incomplete version %+v (use Resolve)", v)
	}
	p := debpkg.Package{Name: v.Package, Version: v.PackageVersion, Arch: v.Arch.Debian()}
	dir, err := debpkg.Fetch(ctx, log, cacheDir, p, func(root string) error {
		_, err := describe(root, v)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
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
