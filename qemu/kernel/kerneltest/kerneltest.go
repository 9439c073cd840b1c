// Package kerneltest gives tests one real Debian kernel per
// architecture, fetched once per test process into
// $FSBENCH_KERNEL_CACHE (default os.TempDir()/fsbench-kernel-cache) and
// reused across runs until Debian publishes a new one. A test that cannot
// get one skips with a single message saying why.
package kerneltest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/arch"
)

// CacheDir is the kernel cache the tests share with qemu/kernel's.
func CacheDir() string {
	if d := os.Getenv("FSBENCH_KERNEL_CACHE"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "fsbench-kernel-cache")
}

type result struct {
	once sync.Once
	k    *kernel.Kernel
	err  error
}

var (
	mu      sync.Mutex
	kernels = map[arch.Arch]*result{}
)

// Get returns the kernel for a (x86_64 or arm64), skipping t when
// apt is missing or cannot reach the mirror, or the foreign architecture
// is not configured (the message says how to configure it).
func Get(t testing.TB, a arch.Arch) *kernel.Kernel {
	t.Helper()
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("apt-get not installed: no Debian kernel to boot")
	}
	mu.Lock()
	r := kernels[a]
	if r == nil {
		r = &result{}
		kernels[a] = r
	}
	mu.Unlock()
	r.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		log := logrus.New()
		log.Out = logWriter{t}
		start := time.Now()
		v, err := kernel.Resolve(ctx, log, CacheDir(), a)
		if err != nil {
			r.err = err
			return
		}
		r.k, r.err = kernel.Fetch(ctx, log, CacheDir(), v)
		t.Logf("kernel %s ready in %v", v, time.Since(start).Round(time.Millisecond))
	})
	switch {
	case errors.Is(r.err, kernel.ErrUnreachable):
		t.Skip("apt-get cannot reach Debian's packages: no Debian kernel to boot")
	case errors.Is(r.err, kernel.ErrForeignArchNotConfigured):
		t.Skip(r.err.Error())
	case r.err != nil:
		t.Fatal(r.err)
	}
	return r.k
}

type logWriter struct{ t testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(string(b))
	return len(b), nil
}
