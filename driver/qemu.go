// Package driver runs a spec's variants on a target and collects their
// results: it builds each variant (package imagegen), then boots it in
// QEMU, with a Debian kernel and an initramfs that fsbench writes itself
// (package qemu), or flashes and powers a board on a serial port, follows
// the console through the whole plan, reboots and power cuts included
// (package console), and leaves the results and the console log beside
// the images. Run is what `fsbench run` does; RunQEMU and RunBoard run one
// built variant.
//
// It is the host side of the target stage: what runs on the board is under
// target/. It knows no recipe by name; what a variant's tests need of the
// machine (modules, a watchdog, boot timing, timeouts) comes from its
// compiled plan. It never runs a shell: the flash and power-cycle
// commands are argument vectors.
package driver

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// QEMU describes the virtual target.
type QEMU struct {
	Accel     string // auto, kvm, tcg
	Disk      string // virtio, nvme, sd
	MemoryMiB int
	CPUs      int
	// KernelCache keeps the Debian kernel packages.
	KernelCache string
	// Kernel names the Debian kernel to boot; the zero Request is the
	// architecture's current one.
	Kernel kernel.Request
	// Boot is "direct" (or empty): QEMU loads the kernel and fsbench's
	// initramfs itself (-kernel, -initrd, -append); or "uboot": Debian's
	// u-boot-qemu is the machine's firmware and boots the image alone,
	// from the boot files build put in it (the board's boot block).
	Boot string
}

// Boot paths of the QEMU target.
const (
	BootDirect = "direct"
	BootUBoot  = "uboot"
)

// Variant is one built variant to run.
type Variant struct {
	Name string
	// Dir is the build's output directory of the variant: manifest.json,
	// the image, payload/.
	Dir string
	// Runner is the runner binary for the board, which also serves as the
	// initramfs's /init.
	Runner string
	// Bootargs is the kernel command line of the variant.
	Bootargs []string
}

// Options configure a run.
type Options struct {
	Log logrus.FieldLogger
	// Timeout bounds the whole run of one variant; 0 derives it from the
	// plan's step timeouts.
	Timeout time.Duration
	// OnResult reports each result as it arrives.
	OnResult func(variant string, r resultframe.Result)
	// Silence ends the run when the console stays quiet this long; 0
	// derives it from the plan's step timeouts.
	Silence time.Duration
}

// Outcome is what one variant's run left.
type Outcome struct {
	Variant string
	Summary *console.Summary
	Results string // the results file
	Console string // the console log, grabserial style
	Kernel  string // the kernel package that ran
	Accel   string
}

// RunQEMU boots v in QEMU and follows it until its plan is complete.
func RunQEMU(ctx context.Context, v Variant, q QEMU, opt Options) (*Outcome, error) {
	log, m, p, runDir, err := prepare(v, opt, "the QEMU target boots one disk")
	if err != nil {
		return nil, err
	}
	a := p.Board.Arch
	disk := filepath.Join(runDir, m.Images[0].File)
	mach := qemu.Machine{
		Arch:      a,
		Append:    append(append([]string(nil), v.Bootargs...), "fsbench.finally=poweroff", "panic=-1"),
		Disks:     []qemu.Disk{{Path: disk, Format: "raw", Interface: q.Disk}},
		MemoryMiB: q.MemoryMiB, CPUs: q.CPUs, Accel: q.Accel, Watchdog: NeedsWatchdog(p),
		HostCounters: NeedsHostCounters(p),
	}
	var kernelPackage, kernelImage string
	switch q.Boot {
	case "", BootDirect:
		boot, err := directBoot(ctx, log, p, mach, q, v.Runner, filepath.Join(runDir, "initramfs.cpio.gz"))
		if err != nil {
			return nil, err
		}
		mach.Kernel, mach.Initrd = boot.Image, boot.Initrd
		if boot.Kernel != nil {
			// The vmlinuz: U-Boot's zboot starts a bzImage.
			kernelImage = boot.Kernel.Image
		}
		kernelPackage = boot.Kernel.Version.String()
	case BootUBoot:
		if m.Boot == nil {
			return nil, fmt.Errorf("variant %s: -boot uboot boots the image alone, and its board has no boot block to put a kernel and %s in it",
				v.Name, "extlinux.conf or boot.scr")
		}
		if q.Kernel != (kernel.Request{}) {
			return nil, fmt.Errorf("variant %s: -kernel names the kernel of a direct boot; through U-Boot the image's own kernel boots (%s)", v.Name, m.Boot.Kernel)
		}
		if disk := cmp.Or(q.Disk, qemu.Virtio); len(m.Boot.Disks) > 0 && !slices.Contains(m.Boot.Disks, disk) {
			return nil, fmt.Errorf("variant %s: the image's initramfs has the drivers of %s disks, for its board's storage, and -disk is %s: run it with -disk %s",
				v.Name, strings.Join(m.Boot.Disks, " and "), disk, m.Boot.Disks[0])
		}
		if mach.Firmware, err = qemu.UBootFirmware(a); err != nil {
			return nil, err
		}
		mach.Append = nil
		kernelPackage = m.Boot.Kernel
	default:
		return nil, fmt.Errorf("boot %q: want direct or uboot", q.Boot)
	}
	log.Infof("copying %s", m.Images[0].File)
	if err := copySparse(filepath.Join(v.Dir, m.Images[0].File), disk); err != nil {
		return nil, err
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = PlanTimeout(p)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vm, err := qemu.Start(ctx, mach, log)
	if err != nil {
		return nil, err
	}
	// The same machine again after a power cut, with the accelerator
	// already decided.
	mach.Accel = vm.Accel()
	sw := newPowerSwitch(ctx, vm, mach, log)
	defer sw.Close()
	out := &Outcome{Variant: v.Name, Results: filepath.Join(runDir, "results.jsonl"),
		Console: filepath.Join(runDir, "console.log"), Kernel: kernelPackage, Accel: vm.Accel()}
	f := follow{variant: v.Name, plan: p, out: out, opt: opt, log: log, attrs: map[string]string{
		"target": "qemu", "machine": machineName(a, q.Disk), "accel": vm.Accel(),
		"kernel_package": kernelPackage, "disk": q.Disk, "boot": cmp.Or(q.Boot, BootDirect),
	},
		// Through U-Boot the command line is the image's, which does not
		// power the machine off at the end, as a board stays on.
		stopWhenComplete: q.Boot == BootUBoot}
	sum, err := f.run(ctx, sw)
	out.Summary = sum
	if err != nil {
		return out, err
	}
	// The runner powers the machine off once the plan is done; a boot
	// through U-Boot leaves it on.
	wait := time.Minute
	if q.Boot == BootUBoot {
		wait = 0
	}
	select {
	case <-sw.VM().Exited():
	case <-time.After(wait):
		if wait > 0 {
			log.Warnf("QEMU still runs a minute after the plan completed; stopping it")
		}
	}
	sw.Close()
	return out, realBoots(ctx, log, p, out, disk, kernelImage, runDir)
}

// directBoot fetches the Debian kernel for a direct boot of mach and
// writes the initramfs, with runner as its /init, to initrd.
func directBoot(ctx context.Context, log logrus.FieldLogger, p *runplan.Plan, mach qemu.Machine, q QEMU, runner, initrd string) (*qemu.DirectBoot, error) {
	return qemu.PrepareDirectBoot(ctx, log, qemu.BootSetup{Arch: p.Board.Arch, Kernel: q.Kernel, Cache: q.KernelCache,
		Init: runner, Modules: append(mach.Modules(fsTypes(p)...), testModules(p)...), Initrd: initrd})
}

// DirectBootFiles prepares a direct boot of the variant built in dir on
// another host's QEMU (a LAVA lab's): the Debian kernel, fetched into
// q.KernelCache, and fsbench's initramfs, with runner as its /init,
// written to initrd, for a machine with the variant's disk on
// q.Disk's interface.
func DirectBootFiles(ctx context.Context, log logrus.FieldLogger, dir string, q QEMU, runner, initrd string) (*qemu.DirectBoot, error) {
	_, p, err := LoadBuild(dir)
	if err != nil {
		return nil, err
	}
	mach := qemu.Machine{Arch: p.Board.Arch, Disks: []qemu.Disk{{Interface: cmp.Or(q.Disk, qemu.Virtio)}}, Watchdog: NeedsWatchdog(p)}
	return directBoot(ctx, log, p, mach, q, runner, initrd)
}

// follow is how a variant's console is followed through its plan.
type follow struct {
	variant string
	plan    *runplan.Plan
	// out names the run directory's files: the results, the console log.
	out *Outcome
	// attrs describe the target in every result.
	attrs map[string]string
	opt   Options
	log   logrus.FieldLogger
	// stopWhenComplete ends at the runner's closing result, as a board
	// stays on; QEMU powers off, which ends the console.
	stopWhenComplete bool
}

// run reads the console into the run directory's files until the plan
// is complete.
func (f follow) run(ctx context.Context, src io.Reader) (*console.Summary, error) {
	out, p, log, opt, variant := f.out, f.plan, f.log, f.opt, f.variant
	store, err := console.OpenStore(out.Results)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	logf, err := os.Create(out.Console)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	raw, err := os.Create(filepath.Join(filepath.Dir(out.Console), "console.raw"))
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	copts, err := PlanConsole(p)
	if err != nil {
		return nil, err
	}
	copts.Log, copts.Raw, copts.Store, copts.Attrs, copts.StopWhenComplete = logf, raw, store, f.attrs, f.stopWhenComplete
	if opt.Silence > 0 {
		copts.Silence = opt.Silence
	}
	copts.OnBoot = func(b console.Boot) {
		if d, ok := b.Interval(); ok {
			log.Infof("boot %d: root mount to prompt %.3f s", b.N, d.Seconds())
		}
	}
	copts.OnResult = func(r resultframe.Result) {
		log.Infof("%s %s/%s #%d: %s", r.Recipe, r.Name, r.Case, r.Iteration, r.Status)
		if opt.OnResult != nil {
			opt.OnResult(variant, r)
		}
	}
	sum, err := console.Follow(ctx, src, copts)
	if err != nil {
		return sum, err
	}
	if !sum.Complete {
		return sum, fmt.Errorf("the console closed before the runner reported the plan complete (%d results)", len(sum.Results))
	}
	if miss := sum.Missing(); len(miss) > 0 {
		return sum, fmt.Errorf("results %v never arrived intact (see %s)", miss, out.Console)
	}
	return sum, nil
}

// PlanConsole is how a console is followed through plan p: which
// results the host times the boots of, the boot_time step's patterns,
// the board's root_wait, and how long the console may stay silent.
func PlanConsole(p *runplan.Plan) (console.Options, error) {
	o := console.Options{Silence: Silence(p), BootTimed: bootTimed(p)}
	if p.Board.RootWait != "" {
		d, err := time.ParseDuration(p.Board.RootWait)
		if err != nil {
			return o, fmt.Errorf("the plan's root_wait: %w", err)
		}
		o.RootWait = d
	}
	if bt := bootTimedStep(p); bt != nil {
		if err := bootPatterns(bt, &o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// prepare reads a built variant and makes its empty run directory.
func prepare(v Variant, opt Options, oneImage string) (logrus.FieldLogger, *imagegen.Manifest, *runplan.Plan, string, error) {
	log := opt.Log
	if log == nil {
		l := logrus.New()
		l.Out = io.Discard
		log = l
	}
	log = log.WithField("variant", v.Name)
	m, p, err := LoadBuild(v.Dir)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if len(m.Images) != 1 {
		return nil, nil, nil, "", fmt.Errorf("variant %s has %d images; %s", v.Name, len(m.Images), oneImage)
	}
	runDir := filepath.Join(v.Dir, "run")
	if err := os.RemoveAll(runDir); err != nil {
		return nil, nil, nil, "", err
	}
	return log, m, p, runDir, os.MkdirAll(runDir, 0o755)
}

// LoadBuild reads the manifest and the run plan of the variant built in
// dir.
func LoadBuild(dir string) (*imagegen.Manifest, *runplan.Plan, error) {
	m, err := imagegen.ReadManifest(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, nil, err
	}
	if m.Payload == nil {
		return nil, nil, fmt.Errorf("%s was built without the runner payload; nothing would run", dir)
	}
	p, err := runplan.Load(filepath.Join(dir, m.Payload.Overlay, runplan.PlanPath))
	if err != nil {
		return nil, nil, err
	}
	return m, p, nil
}

// machineName describes the emulated board in results, as
// "qemu-system-x86_64 q35 virtio".
func machineName(a arch.Arch, disk string) string {
	return "qemu-system-" + a.QEMU() + " " + qemu.MachineType(a) + " " + disk
}
