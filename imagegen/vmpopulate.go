package imagegen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/driver/qemu"
	"github.com/fsbench/fsbench/driver/qemu/initramfs"
	"github.com/fsbench/fsbench/driver/qemu/kernel"
	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/populate"
	"github.com/fsbench/fsbench/wire/arch"
)

// vmPopulate writes the staged tree into the filesystem image img of type
// fstype with the kernel's own driver, for filesystems no host tool writes
// offline (nilfs2): GNU tar archives the tree in the staging session, so
// owners, modes and device numbers are the staged ones, and a QEMU helper
// boot of the host's architecture, with img and the archive as disks,
// extracts it (package populate) and reads it back.
func (b *builder) vmPopulate(ctx context.Context, fstype, img string, t *tree, work string) error {
	archive := filepath.Join(work, "tree.tar")
	argv := []string{"tar", "--create", "--format=pax", "--numeric-owner", "--sort=name",
		"--xattrs", "--xattrs-include=*", "--file", archive, "--directory", t.root, "."}
	if _, err := runTool(ctx, t.run, argv, nil); err != nil {
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
	h, err := b.helperBoot(ctx, fstype, work)
	if err != nil {
		return err
	}
	m := qemu.Machine{
		Arch: h.arch, Kernel: h.kernel, Initrd: h.initrd, NoReboot: true, Accel: "auto",
		Append: []string{"panic=-1", populate.OptSource + "=/dev/vdb", populate.OptTarget + "=/dev/vda",
			populate.OptFSType + "=" + fstype},
		Disks: []qemu.Disk{{Path: img, Interface: qemu.Virtio}, {Path: archive, Interface: qemu.Virtio}},
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	b.log.Infof("populating %s in a QEMU helper boot", fstype)
	vm, err := qemu.Start(ctx, m, b.log)
	if err != nil {
		return fmt.Errorf("helper boot: %w", err)
	}
	defer vm.Close()
	var tail bytes.Buffer
	res, err := capture.Capture(ctx, vm.Console(), capture.Options{
		Raw:  &tail,
		Quit: populateMarkers,
	})
	if err != nil {
		return fmt.Errorf("helper boot: %w", err)
	}
	for _, l := range res.Lines {
		text := strings.TrimSpace(l.Text())
		if i := strings.Index(text, populate.OKMarker); i >= 0 {
			b.log.Debugf("%s", text[i:])
			vm.Wait()
			return nil
		}
		if i := strings.Index(text, populate.FailMarker); i >= 0 {
			return fmt.Errorf("helper boot: %s", text[i+len(populate.FailMarker)+2:])
		}
	}
	return fmt.Errorf("helper boot ended without a verdict; its console ended with:\n%s", lastLines(tail.String(), 15))
}

var populateMarkers = regexp.MustCompile(populate.OKMarker + "|" + populate.FailMarker)

// helper is what a helper boot needs.
type helper struct {
	arch           arch.Arch
	kernel, initrd string
}

// helperBoot prepares the kernel and initramfs of a helper boot for
// fstype in work: Debian's current kernel for the host's architecture, and
// the host-architecture runner as /init.
func (b *builder) helperBoot(ctx context.Context, fstype, work string) (*helper, error) {
	host, ok := arch.Host()
	if !ok || (host != arch.X86_64 && host != arch.ARM64) {
		return nil, fmt.Errorf("helper boots need an x86_64 or arm64 host, not %s", runtime.GOARCH)
	}
	explicit := b.opts.HelperRunner
	if explicit == "" && b.arch == host {
		explicit = b.opts.Runner
	}
	init, err := payload.FindRunner(explicit, host)
	if err != nil {
		return nil, fmt.Errorf("helper boot: %w", err)
	}
	cache := filepath.Join(b.opts.cacheDir(), "kernels")
	v, err := kernel.Resolve(ctx, b.log, b.opts.cacheDir(), host)
	if err != nil {
		return nil, err
	}
	k, err := kernel.Fetch(ctx, b.log, cache, v)
	if err != nil {
		return nil, err
	}
	m := qemu.Machine{Arch: host, Disks: []qemu.Disk{{Interface: qemu.Virtio}}}
	initrd := filepath.Join(work, "helper-initramfs.cpio.gz")
	err = atomicfile.WriteFunc(initrd, 0o644, func(w io.Writer) error {
		_, err := initramfs.Build(w, initramfs.Boot{Kernel: k, Modules: m.Modules(fstype), Init: init})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("helper initramfs: %w", err)
	}
	return &helper{arch: host, kernel: qemu.BootKernel(ctx, k, filepath.Join(cache, "uncompressed"), b.log), initrd: initrd}, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
