package qemu

import (
	"context"
	"io"
	"path/filepath"
	"sync"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/qemu/initramfs"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/arch"
)

// DirectBoot is the kernel set-up of a direct boot (QEMU's -kernel and
// -initrd): a Debian kernel and an initramfs fsbench wrote, whose /init
// is the runner. `fsbench run` boots a variant's image with one, and the
// image builder its helper boots (nilfs2 contents).
type DirectBoot struct {
	// Kernel is the Debian kernel, as a result records it.
	Kernel *kernel.Kernel
	// Image is the file for Machine.Kernel (see BootKernel).
	Image string
	// Initrd is the file for Machine.Initrd.
	Initrd string
}

// BootSetup says what a direct boot needs.
type BootSetup struct {
	Arch arch.Arch
	// Kernel names the Debian kernel; the zero Request is the
	// architecture's current one.
	Kernel kernel.Request
	// Cache keeps the kernel packages, apt's answers about them and
	// their uncompressed images.
	Cache string
	// Init is the runner binary for Arch: /init of the initramfs.
	Init string
	// Modules are loaded by the initramfs, with their dependencies;
	// Machine.Modules names those of a machine's disks and filesystems.
	Modules []string
	// Initrd is where the initramfs is written.
	Initrd string
}

// PrepareDirectBoot fetches the kernel (once per process, architecture
// and request) and writes the initramfs.
func PrepareDirectBoot(ctx context.Context, log logrus.FieldLogger, s BootSetup) (*DirectBoot, error) {
	k, err := FetchKernel(ctx, log, s.Cache, s.Arch, s.Kernel)
	if err != nil {
		return nil, err
	}
	err = atomicfile.WriteFunc(s.Initrd, 0o644, func(w io.Writer) error {
		_, err := initramfs.Build(w, initramfs.Boot{Kernel: k, Modules: s.Modules, Init: s.Init})
		return err
	})
	if err != nil {
		return nil, err // initramfs's errors say where they come from
	}
	return &DirectBoot{Kernel: k, Image: BootKernel(ctx, k, filepath.Join(s.Cache, "uncompressed"), log), Initrd: s.Initrd}, nil
}

// kernels holds the kernels fetched, by architecture and request.
var kernels sync.Map // kernelKey -> *kernel.Kernel

type kernelKey struct {
	arch arch.Arch
	req  kernel.Request
}

// FetchKernel resolves and fetches the Debian kernel req names for a, into
// cache, once per process.
func FetchKernel(ctx context.Context, log logrus.FieldLogger, cache string, a arch.Arch, req kernel.Request) (*kernel.Kernel, error) {
	key := kernelKey{a, req}
	if k, ok := kernels.Load(key); ok {
		return k.(*kernel.Kernel), nil
	}
	v, err := kernel.ResolveRequest(ctx, log, cache, a, req)
	if err != nil {
		return nil, err
	}
	k, err := kernel.Fetch(ctx, log, cache, v)
	if err != nil {
		return nil, err
	}
	kernels.Store(key, k)
	return k, nil
}
