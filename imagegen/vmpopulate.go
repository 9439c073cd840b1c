package imagegen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/bootabi"
)

// vmPopulate writes the staged tree into the filesystem image img of type
// fstype with the kernel's own driver, for filesystems no host tool writes
// offline (nilfs2): GNU tar archives the tree in the staging session, so
// owners, modes and device numbers are the staged ones, and a QEMU helper
// boot of the host's architecture, with img and the archive as disks,
// extracts it (package populate) and reads it back.
func (b *builder) vmPopulate(ctx context.Context, fstype, img string, t *tree, work string, lim limits) error {
	archive := filepath.Join(work, "tree.tar")
	argv := []string{"tar", "--create", "--format=pax", "--numeric-owner", "--sort=name",
		"--xattrs", "--xattrs-include=*", "--file", archive, "--directory", t.root, "."}
	if _, err := runTool(ctx, t.run, lim, argv, nil); err != nil {
		return fmt.Errorf("archiving the staged tree: %w", err)
	}
	defer os.Remove(archive)
	// A disk is whole sectors.
	if fi, err := os.Stat(archive); err != nil {
		return err
	} else if rem := fi.Size() % 512; rem != 0 {
		if err := os.Truncate(archive, fi.Size()+512-rem); err != nil {
			return err
		}
	}
	m, err := b.helperMachine(ctx, fstype, work)
	if err != nil {
		return err
	}
	m.Append = []string{"panic=-1", bootabi.PopulateSource + "=/dev/vdb", bootabi.PopulateTarget + "=/dev/vda",
		bootabi.PopulateFSType + "=" + fstype}
	m.Disks = []qemu.Disk{{Path: img, Interface: qemu.Virtio}, {Path: archive, Interface: qemu.Virtio}}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	b.log.Infof("populating %s in a QEMU helper boot", fstype)
	vm, err := qemu.Start(ctx, m, b.log)
	if err != nil {
		return fmt.Errorf("helper boot: %w", err)
	}
	defer vm.Close()
	line, err := vm.WaitLine(bootabi.PopulateOK, bootabi.PopulateFailed)
	if err != nil {
		return fmt.Errorf("helper boot: %w", err)
	}
	if msg, failed := strings.CutPrefix(line, bootabi.PopulateFailed); failed {
		return fmt.Errorf("helper boot: %s", strings.TrimPrefix(msg, ": "))
	}
	b.log.Debugf("%s", line)
	vm.Wait()
	return nil
}

// helperMachine prepares the machine of a helper boot for fstype in
// work, without its disks and command line: Debian's current kernel for
// the host's architecture, with the host-architecture runner as /init of
// an initramfs that loads the modules of virtio disks and of fstype.
func (b *builder) helperMachine(ctx context.Context, fstype, work string) (qemu.Machine, error) {
	host, ok := arch.Host()
	if !ok || (host != arch.X86_64 && host != arch.ARM64) {
		return qemu.Machine{}, fmt.Errorf("helper boots need an x86_64 or arm64 host, not %s", runtime.GOARCH)
	}
	explicit := b.opts.HelperRunner
	if explicit == "" && b.arch == host {
		explicit = b.opts.Runner
	}
	init, err := payload.FindRunner(explicit, host)
	if err != nil {
		return qemu.Machine{}, fmt.Errorf("helper boot: %w", err)
	}
	m := qemu.Machine{Arch: host, Disks: []qemu.Disk{{Interface: qemu.Virtio}}, NoReboot: true, Accel: "auto"}
	boot, err := qemu.PrepareDirectBoot(ctx, b.log, qemu.BootSetup{Arch: host, Cache: filepath.Join(b.opts.cacheDir(), "kernels"),
		Init: init, Modules: m.Modules(fstype), Initrd: filepath.Join(work, "helper-initramfs.cpio.gz")})
	if err != nil {
		return qemu.Machine{}, fmt.Errorf("helper boot: %w", err)
	}
	m.Kernel, m.Initrd = boot.Image, boot.Initrd
	return m, nil
}
