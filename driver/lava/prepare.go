package lava

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/qemu"
)

// Dir is the directory, in a variant's build directory, of the files a
// job on a qemu device downloads besides the image.
const Dir = "lava"

// PrepareDirect writes into the variant's lava/ directory what a qemu
// device needs to boot it directly: Debian's kernel for the board
// (fetched into q.KernelCache) and fsbench's initramfs with runner as
// its /init, for the disk interface the board's storage names. It sets
// v.Kernel and v.Initrd.
func PrepareDirect(ctx context.Context, log logrus.FieldLogger, v *Variant, q driver.QEMU, runner string) error {
	dir := filepath.Join(v.Dir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	q.Disk = diskInterface(v.Board.Storage)
	boot, err := driver.DirectBootFiles(ctx, log, v.Dir, q, runner, filepath.Join(dir, "initramfs.cpio.gz"))
	if err != nil {
		return err
	}
	name := filepath.Base(boot.Image)
	if err := copyFile(boot.Image, filepath.Join(dir, name)); err != nil {
		return err
	}
	v.Kernel, v.Initrd = filepath.Join(Dir, name), filepath.Join(Dir, "initramfs.cpio.gz")
	return nil
}

// PrepareUBoot copies Debian's u-boot-qemu firmware for the board's
// architecture into the variant's lava/ directory, for a qemu device
// that boots the image through U-Boot, and sets v.Firmware.
func PrepareUBoot(v *Variant) error {
	fw, err := qemu.UBootFirmware(v.Board.Arch)
	if err != nil {
		return err
	}
	dir := filepath.Join(v.Dir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Base(fw)
	if err := copyFile(fw, filepath.Join(dir, name)); err != nil {
		return err
	}
	v.Firmware = filepath.Join(Dir, name)
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.WriteFunc(dst, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
