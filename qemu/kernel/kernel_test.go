package kernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testenv"
)

// The tests share one real Debian kernel (~70 MB download, ~400 MB
// unpacked). It is cached in $FSBENCH_KERNEL_CACHE, by default
// os.TempDir()/fsbench-kernel-cache, where Fetch keys it by package and
// version: the first run downloads it, later runs reuse it until Debian
// publishes a new kernel. Delete the directory to force a fresh download.
var shared struct {
	once sync.Once
	k    *Kernel
	err  error
	dir  string
}

func testCacheDir() string {
	if d := os.Getenv("FSBENCH_KERNEL_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "fsbench-kernel-cache")
}

func testKernel(t *testing.T) *Kernel {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		shared.dir = testCacheDir()
		start := time.Now()
		v, err := Resolve(ctx, testLog(t), testCacheDir(), "x86_64")
		if err != nil {
			shared.err = err
			return
		}
		shared.k, shared.err = Fetch(ctx, testLog(t), shared.dir, v)
		t.Logf("resolved and fetched %s into %s in %v", v, shared.dir, time.Since(start).Round(time.Millisecond))
	})
	if errors.Is(shared.err, ErrUnreachable) {
		testenv.Missing(t, "the Debian mirror, for apt-get")
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.k
}

func TestVersionFormat(t *testing.T) {
	k := testKernel(t)
	t.Logf("kernel %s, release %s", k.Version, k.Release)
	if !regexp.MustCompile(`^linux-image-\d+\.\d+\.\d+-\d+-amd64$`).MatchString(k.Package) {
		t.Errorf("Package = %q", k.Package)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+-\d+`).MatchString(k.PackageVersion) {
		t.Errorf("PackageVersion = %q", k.PackageVersion)
	}
	if want := k.Package + ":amd64=" + k.PackageVersion; k.Version.String() != want {
		t.Errorf("String() = %q, want %q", k.Version.String(), want)
	}
	if k.Metapackage != "linux-image-amd64" || k.Arch != "x86_64" || k.Arch.Debian() != "amd64" {
		t.Errorf("Version = %+v", k.Version)
	}
	if "linux-image-"+k.Release != k.Package {
		t.Errorf("Release %q does not match package %q", k.Release, k.Package)
	}
}

func TestFetchFiles(t *testing.T) {
	k := testKernel(t)
	for _, p := range []string{k.Image, k.Config, k.ModulesDir} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if !debpkg.Cached(k.Dir, debpkg.Package{Name: k.Package, Version: k.PackageVersion, Arch: k.Arch.Debian()}) {
		t.Errorf("%s is not a complete cache entry", k.Dir)
	}
	if filepath.Base(k.Image) != "vmlinuz-"+k.Release {
		t.Errorf("Image = %s", k.Image)
	}
}

func TestFetchReusesCache(t *testing.T) {
	k := testKernel(t)
	before, err := os.ReadDir(shared.dir)
	if err != nil {
		t.Fatal(err)
	}
	// A cancelled context makes any command fail: a cached Fetch must
	// succeed without running apt-get or dpkg at all.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k2, err := Fetch(ctx, testLog(t), shared.dir, k.Version)
	if err != nil {
		t.Fatalf("cached Fetch ran a command: %v", err)
	}
	after, err := os.ReadDir(shared.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("cached Fetch changed the cache: %d entries before, %d after", len(before), len(after))
	}
	if k2.Dir != k.Dir || k2.Image != k.Image {
		t.Errorf("cached Fetch returned %s, want %s", k2.Dir, k.Dir)
	}
}

func TestFetchRejectsWrongMarker(t *testing.T) {
	k := testKernel(t)
	other := k.Version
	other.PackageVersion += "+other"
	p := debpkg.Package{Name: other.Package, Version: other.PackageVersion, Arch: other.Arch.Debian()}
	if debpkg.Cached(k.Dir, p) {
		t.Error("a cache entry whose marker names another version counts as cached")
	}
}

func TestResolveArchitectures(t *testing.T) {
	ctx := context.Background()
	if _, err := Resolve(ctx, testLog(t), testCacheDir(), "riscv64"); err == nil {
		t.Error("Resolve(riscv64) succeeded")
	}
	v, err := Resolve(ctx, testLog(t), testCacheDir(), "arm64")
	switch {
	case errors.Is(err, ErrForeignArchNotConfigured):
		t.Logf("arm64: %v", err)
		if !regexp.MustCompile(`dpkg --add-architecture arm64 && apt-get update`).MatchString(err.Error()) {
			t.Errorf("arm64 error does not say how to set up: %v", err)
		}
	case err != nil:
		t.Error(err)
	default:
		t.Logf("arm64: %s", v)
		if !regexp.MustCompile(`^linux-image-.*-arm64$`).MatchString(v.Package) {
			t.Errorf("arm64 Package = %q", v.Package)
		}
	}
}

// testLog sends the package's log lines to the test's log.
func testLog(t *testing.T) logrus.FieldLogger {
	l := logrus.New()
	l.Out = testWriter{t}
	l.Level = logrus.DebugLevel
	return l
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
