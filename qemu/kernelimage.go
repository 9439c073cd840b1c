package qemu

import (
	"context"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/qemu/kernel"
)

// BootKernel returns the file to boot k from (Machine.Kernel): the
// uncompressed kernel that k.Uncompressed writes into dir (once; later
// calls reuse it), or, if that fails, k's own image with a warning.
//
// On x86_64 that is the PVH vmlinux, which spares the guest the
// decompression of an 8 MB xz payload in emulated code: QEMU 7.2 under
// TCG (q35, one vCPU, 512 MiB), booting Debian 6.1 through bootinit to the
// init of an ext4 root and its power-off, used 5.2-6.9 s of CPU with the
// vmlinux and 12.0-13.3 s with the bzImage (wall 7-14 s against 16-38 s,
// on a 2-core host that other jobs kept busy). On aarch64 Debian 12's
// vmlinuz already is the raw Image and is returned as it is.
func BootKernel(ctx context.Context, k *kernel.Kernel, dir string, log logrus.FieldLogger) string {
	p, err := k.Uncompressed(ctx, dir)
	if err != nil {
		log.Warnf("qemu: booting the compressed %s, which is slower under TCG: %v", k.Image, err)
		return k.Image
	}
	return p
}
