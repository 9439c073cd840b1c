package lava

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/internal/cmdline"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Boot paths on a LAVA qemu device, as for fsbench's own QEMU target.
const (
	BootDirect = driver.BootDirect
	BootUBoot  = driver.BootUBoot
)

// Options configure the jobs of a spec.
type Options struct {
	// Artifacts is the URL under which the lab downloads each variant's
	// files: <Artifacts>/<variant>/<file>, as the build's output
	// directory holds them (http://, https:// or, for a dispatcher on
	// this host, file://).
	Artifacts string
	// DeviceType and Tags override the board's lava block.
	DeviceType string
	Tags       []string
	// Boot is how a qemu device boots: BootDirect (default) or BootUBoot.
	Boot string
	// Accel is a qemu device's accelerator: "tcg" (default) or "kvm".
	Accel string
	// MemoryMiB is a qemu device's memory; 0 is 512.
	MemoryMiB int
	// Repeat is how many jobs each variant gets (at least one): a lab
	// runs them on as many devices at once.
	Repeat int
	// Priority is LAVA's: high, medium (default) or low.
	Priority string
	// Version is fsbench's, for the jobs' metadata.
	Version string
}

// Variant is one built variant.
type Variant struct {
	Name string
	// Dir is the build's output directory of the variant.
	Dir   string
	Board plan.Board
	// Kernel and Initrd, for a direct boot on a qemu device, are the
	// files PrepareDirect wrote, relative to Dir.
	Kernel, Initrd string
	// Firmware, for a boot through U-Boot on a qemu device, is the
	// firmware file relative to Dir (PrepareUBoot).
	Firmware string
}

// Job is one job definition for a variant.
type Job struct {
	Variant string
	// File is the definition's file name: <variant>.yaml, or
	// <variant>-<i>.yaml with repetitions.
	File       string
	Definition *Definition
}

// Monitor patterns: the runner's first line of each boot's work, the
// line after its closing result, and the LAVA test-case signal it prints
// for every result (with fsbench.lava=1). Measurements stay in the
// result frames, where fsbench reads them: a LAVA server stores a
// monitor's optional groups as empty values.
var (
	startPattern  = "fsbench-runner: " + runplan.StartMessage + "[0-9a-f]+, boot [0-9]+,"
	endPattern    = "fsbench-runner: " + runplan.CompleteMessage
	resultPattern = "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(?P<test_case_id>[^ >]+) RESULT=(?P<result>pass|fail|skip|unknown)"
)

// LAVAKernelArg makes the runner print a LAVA test-case signal for every
// result.
const LAVAKernelArg = "fsbench.lava=1"

// Jobs writes no file: it returns the job definitions of v, checked
// against what the device type can run.
func Jobs(v Variant, opt Options) ([]Job, error) {
	m, p, err := driver.LoadBuild(v.Dir)
	if err != nil {
		return nil, err
	}
	if len(m.Images) != 1 {
		return nil, fmt.Errorf("variant %s has %d images; a LAVA job writes one image to the device", v.Name, len(m.Images))
	}
	dt, tags, err := deviceOf(v, opt)
	if err != nil {
		return nil, err
	}
	if err := runsOnLAVA(v.Name, p); err != nil {
		return nil, err
	}
	base, err := artifactBase(opt.Artifacts, v.Name)
	if err != nil {
		return nil, err
	}
	file := func(rel string) (Image, error) {
		sum, err := fileSHA256(filepath.Join(v.Dir, rel))
		if err != nil {
			return Image{}, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		u := *base
		u.Path = path.Join(base.Path, filepath.ToSlash(rel))
		return Image{URL: u.String(), SHA256Sum: sum}, nil
	}
	img := m.Images[0].File
	var actions []Action
	var context *Context
	if dt == spec.LAVAQEMU {
		var deploy *Deploy
		if context, deploy, err = qemuDeploy(v, opt, p, strings.Fields(m.Bootargs), img, file); err != nil {
			return nil, err
		}
		actions = append(actions, Action{Deploy: deploy},
			Action{Boot: &Boot{Method: "qemu", Media: "tmpfs", Timeout: bootTimeout}})
	} else {
		image, err := file(img)
		if err != nil {
			return nil, err
		}
		bmap, err := file(img + ".bmap")
		if err != nil {
			return nil, err
		}
		actions = append(actions,
			Action{Deploy: &Deploy{To: "flasher", Timeout: deployTimeout, Images: map[string]Image{"image": image, "bmap": bmap}}},
			// U-Boot's distro boot finds the image's extlinux.conf or
			// boot.scr on the storage the flasher wrote.
			Action{Boot: &Boot{Method: "u-boot", Commands: []string{"run distro_bootcmd"}, Timeout: bootTimeout}})
	}
	test := minutes(driver.PlanTimeout(p))
	actions = append(actions, Action{Test: &Test{Timeout: test, Monitors: []Monitor{{
		Name: "fsbench", Start: startPattern, End: endPattern, Pattern: resultPattern,
	}}}})
	repeat := max(1, opt.Repeat)
	var jobs []Job
	for i := 1; i <= repeat; i++ {
		name, fileName := "fsbench "+specName(p.Spec)+" "+v.Name, v.Name+".yaml"
		meta := map[string]string{
			"fsbench.spec": p.Spec, "fsbench.fingerprint": p.Fingerprint, "fsbench.variant": v.Name,
			"fsbench.board": v.Board.Name, "fsbench.image": img, "fsbench.version": cmp.Or(opt.Version, "dev"),
		}
		if repeat > 1 {
			name += fmt.Sprintf(" (%d/%d)", i, repeat)
			fileName = fmt.Sprintf("%s-%d.yaml", v.Name, i)
			meta["fsbench.repetition"] = fmt.Sprintf("%d/%d", i, repeat)
		}
		if len(name) > 200 {
			name = name[:200]
		}
		d := &Definition{
			DeviceType: dt, JobName: name, Tags: tags,
			Timeouts: Timeouts{
				Job:        Timeout{Minutes: deployTimeout.Minutes + bootTimeout.Minutes + test.Minutes + 5},
				Action:     deployTimeout,
				Connection: minutes(driver.Silence(p)),
			},
			Priority: cmp.Or(opt.Priority, "medium"), Visibility: "public",
			Context: context, Metadata: meta, Actions: actions,
		}
		jobs = append(jobs, Job{Variant: v.Name, File: fileName, Definition: d})
	}
	return jobs, nil
}

// Timeouts of the actions before the test: a download of the image and
// the boot to the kernel.
var (
	deployTimeout = Timeout{Minutes: 15}
	bootTimeout   = Timeout{Minutes: 5}
)

// deviceOf is the device type and tags of v's jobs: the options', else
// the board's lava block.
func deviceOf(v Variant, opt Options) (string, []string, error) {
	dt, tags := opt.DeviceType, opt.Tags
	if l := v.Board.LAVA; l != nil {
		dt = cmp.Or(dt, l.DeviceType)
		if tags == nil {
			tags = l.Tags
		}
	}
	if dt == "" {
		return "", nil, fmt.Errorf("variant %s: board %q has no lava block naming its device type, and -device-type gives none", v.Name, v.Board.Name)
	}
	for _, n := range append([]string{dt}, tags...) {
		if !spec.LAVAName(n) {
			return "", nil, fmt.Errorf("%q is not a LAVA device type or tag name: letters, digits, '_', '.' and '-'", n)
		}
	}
	b := v.Board
	if dt == spec.LAVAQEMU {
		if b.Arch != arch.X86_64 && b.Arch != arch.ARM64 && b.Arch != arch.ARM {
			return "", nil, fmt.Errorf("variant %s: a LAVA qemu device runs x86_64, aarch64 and arm boards, and board %q is %s", v.Name, b.Name, b.Arch)
		}
		if diskInterface(b.Storage) == "" {
			return "", nil, fmt.Errorf("variant %s: a LAVA qemu device attaches the disk as vda, nvme0n1 or mmcblk0, and board %q names its storage %s", v.Name, b.Name, b.Storage)
		}
	} else if b.Boot == nil {
		return "", nil, fmt.Errorf("variant %s: on device type %s U-Boot boots the image from its own boot files, and board %q has no boot block", v.Name, dt, b.Name)
	}
	return dt, tags, nil
}

// runsOnLAVA refuses a plan that needs the host beside the board: the
// power_loss recipe's host_kill trigger and crash_states' interrupt_after
// ask fsbench's own target for the cut (runplan.PowerCutMarker), which no
// LAVA job can make.
func runsOnLAVA(variant string, p *runplan.Plan) error {
	for _, s := range p.Steps {
		if t, _ := s.Params["trigger"].(string); t == "host_kill" {
			return fmt.Errorf("variant %s: %s cuts the power from the host (trigger = \"host_kill\"), which a LAVA job cannot do; use trigger = \"watchdog\" on a lab",
				variant, s.ID())
		}
		if n, err := s.Params.Int("interrupt_after"); err == nil && n > 0 {
			return fmt.Errorf("variant %s: %s asks the host to cut the power (interrupt_after = %d), which a LAVA job cannot do; leave interrupt_after at 0 on a lab",
				variant, s.ID(), n)
		}
	}
	return nil
}

// diskInterface is the QEMU interface of a board's storage.
func diskInterface(storage string) string {
	return map[string]string{"vda": "virtio", "nvme0n1": "nvme", "mmcblk0": "sd"}[storage]
}

// qemuDeploy is the context and the deploy action of a job on a LAVA
// qemu device: the disk, and the kernel and initramfs of a direct boot or
// the U-Boot firmware.
func qemuDeploy(v Variant, opt Options, p *runplan.Plan, bootargs []string, img string, file func(string) (Image, error)) (*Context, *Deploy, error) {
	b := v.Board
	boot := cmp.Or(opt.Boot, BootDirect)
	accel := cmp.Or(opt.Accel, "tcg")
	if accel != "tcg" && accel != "kvm" {
		return nil, nil, fmt.Errorf("accelerator %q: want tcg or kvm", accel)
	}
	ctx := &Context{Arch: map[arch.Arch]string{arch.X86_64: "amd64", arch.ARM64: "arm64", arch.ARM: "arm"}[b.Arch],
		NoKVM: accel == "tcg", Memory: cmp.Or(opt.MemoryMiB, 512)}
	switch b.Arch {
	case arch.X86_64:
		// The device type gives x86_64 neither a machine nor, without
		// KVM, a CPU: fsbench's are q35 and, under TCG, "max" (see
		// package qemu).
		ctx.ExtraOptions = append(ctx.ExtraOptions, "-machine q35")
		if accel == "tcg" {
			ctx.ExtraOptions = append(ctx.ExtraOptions, "-cpu max")
		}
	case arch.ARM64:
		ctx.CPU, ctx.Machine = "cortex-a57", "virt"
	case arch.ARM:
		ctx.CPU, ctx.Machine = "cortex-a15", "virt"
	}
	if driver.NeedsWatchdog(p) {
		ctx.ExtraOptions = append(ctx.ExtraOptions, "-device i6300esb", "-action watchdog=reset")
	}
	disk, err := file(img)
	if err != nil {
		return nil, nil, err
	}
	slot := ""
	if boot == BootUBoot && b.Arch == arch.X86_64 {
		slot = ",addr=3" // as package qemu places it under U-Boot
	}
	drive := "-drive file={disk},format=raw,if=none,id=disk0 "
	switch diskInterface(b.Storage) {
	case "virtio":
		disk.ImageArg = drive + "-device virtio-blk-pci,drive=disk0" + slot
	case "nvme":
		disk.ImageArg = drive + "-device nvme,drive=disk0,serial=fsbench0" + slot
	case "sd":
		disk.ImageArg = drive + "-device sdhci-pci" + slot + " -device sd-card,drive=disk0"
	}
	images := map[string]Image{"disk": disk}
	switch boot {
	case BootDirect:
		if v.Kernel == "" || v.Initrd == "" {
			return nil, nil, fmt.Errorf("variant %s: a direct boot needs the kernel and initramfs (PrepareDirect)", v.Name)
		}
		kernel, err := file(v.Kernel)
		if err != nil {
			return nil, nil, err
		}
		initrd, err := file(v.Initrd)
		if err != nil {
			return nil, nil, err
		}
		args, err := kernelArgs(b, bootargs)
		if err != nil {
			return nil, nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		// pexpect splits the QEMU command line as a shell would; the
		// words of the command line hold no quote, backslash or space.
		kernel.ImageArg = `-kernel {kernel} -append "` + strings.Join(args, " ") + `"`
		initrd.ImageArg = "-initrd {initrd}"
		images["kernel"], images["initrd"] = kernel, initrd
	case BootUBoot:
		if b.Boot == nil {
			return nil, nil, fmt.Errorf("variant %s: -boot uboot boots the image alone, and board %q has no boot block", v.Name, b.Name)
		}
		if v.Firmware == "" {
			return nil, nil, fmt.Errorf("variant %s: a boot through U-Boot needs its firmware (PrepareUBoot)", v.Name)
		}
		fw, err := file(v.Firmware)
		if err != nil {
			return nil, nil, err
		}
		fw.ImageArg = "-bios {bios}"
		images["bios"] = fw
	default:
		return nil, nil, fmt.Errorf("boot %q: want direct or uboot", boot)
	}
	return ctx, &Deploy{To: "tmpfs", Timeout: deployTimeout, Images: images}, nil
}

// kernelArgs is the command line of a direct boot: the console, the
// variant's bootargs and the runner's LAVA signals, each word checked.
func kernelArgs(b plan.Board, bootargs []string) ([]string, error) {
	var args []string
	if !slices.ContainsFunc(bootargs, func(a string) bool { return strings.HasPrefix(a, "console=") }) {
		args = append(args, "console="+b.Console)
	}
	args = append(append(args, bootargs...), LAVAKernelArg, "panic=-1")
	for _, a := range args {
		if err := cmdline.Word(a); err != nil {
			return nil, fmt.Errorf("kernel argument %q: %v", a, err)
		}
	}
	return args, nil
}

// artifactBase is the URL of a variant's files under base.
func artifactBase(base, variant string) (*url.URL, error) {
	if base == "" {
		return nil, errors.New("the jobs need the URL the lab downloads the images from (-artifacts), such as https://files.example.com/fsbench/out")
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("artifacts URL %q: %v", base, err)
	}
	switch u.Scheme {
	case "http", "https", "file":
	default:
		return nil, fmt.Errorf("artifacts URL %q: want http://, https:// or file://", base)
	}
	if u.Scheme != "file" && u.Host == "" {
		return nil, fmt.Errorf("artifacts URL %q has no host", base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("artifacts URL %q: a query or fragment would follow every file's name; give the directory's URL", base)
	}
	u.Path = path.Join("/", u.Path, variant)
	u.RawPath = ""
	return u, nil
}

func specName(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".hcl"), ".fsb")
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
