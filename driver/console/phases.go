package console

import (
	"regexp"
	"time"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Marks are the console lines that divide a boot into phases, from the
// first byte after power-on or reset to the prompt. A nil pattern takes
// its default. Each mark counts once per boot, at its first line, and
// only in its place: the bootloader's hand-over before the kernel's first
// line, init after the root mount.
type Marks struct {
	// Banner is the firmware's or bootloader's banner (U-Boot SPL and
	// U-Boot proper, SeaBIOS, ...).
	Banner *regexp.Regexp
	// Handover is the bootloader's last line before the kernel runs.
	Handover *regexp.Regexp
	// Kernel is the kernel's first console line.
	Kernel *regexp.Regexp
	// Init is the root filesystem's init starting.
	Init *regexp.Regexp
}

// Default marks. The kernel's first line is "Booting Linux on physical
// CPU" on ARM and "Linux version" everywhere, or any line it stamps at
// time zero (an x86 kernel booted by SeaBIOS's option ROM shows "Command
// line:" first). Init is the kernel's "Run
// /sbin/init as init process" when it mounts the root itself, Debian's
// TOMOYO notice, which the kernel prints when init is executed, and
// systemd's banner. The hand-over is U-Boot's "Starting kernel ...",
// GRUB's "Loading Linux" or SeaBIOS's "Booting from ROM" (QEMU's direct
// boot on x86).
var (
	DefaultBanner   = regexp.MustCompile(`U-Boot (SPL |TPL )?20[0-9][0-9]\.|SeaBIOS \(version|Barebox 20[0-9][0-9]|barebox 20[0-9][0-9]`)
	DefaultHandover = regexp.MustCompile(`Starting kernel \.\.\.|^Loading Linux [0-9]|^Booting from (ROM|Hard Disk)`)
	DefaultKernel   = regexp.MustCompile(`Booting Linux on physical CPU|Linux version [0-9]|^\[ *0\.000000\] `)
	DefaultInit     = regexp.MustCompile(`Run /\S*init as init process|Not activating Mandatory Access Control|systemd\[1\]: systemd [0-9]+ running`)
)

func (m Marks) withDefaults() Marks {
	if m.Banner == nil {
		m.Banner = DefaultBanner
	}
	if m.Handover == nil {
		m.Handover = DefaultHandover
	}
	if m.Kernel == nil {
		m.Kernel = DefaultKernel
	}
	if m.Init == nil {
		m.Init = DefaultInit
	}
	return m
}

// restart is the kernel's last line before a reset: the next byte is the
// next boot's first.
var restart = regexp.MustCompile(`reboot: Restarting system|Restarting system\.|reboot: machine restart`)

// Phase is one part of a boot on the host's clock.
type Phase struct {
	Name     string
	Duration time.Duration
}

// Phase names, in boot order, each ending at its mark.
const (
	PhaseFirmware   = "firmware"    // reset (or first byte) to the banner
	PhaseBootloader = "bootloader"  // banner to the hand-over
	PhaseKernelLoad = "kernel_load" // hand-over to the kernel's first line
	PhaseKernel     = "kernel"      // kernel's first line to the root mount
	PhaseInit       = "init"        // root mount to init
	PhaseUserspace  = "userspace"   // init (or root mount) to the prompt
)

// PhaseNames are the phases in boot order.
var PhaseNames = []string{PhaseFirmware, PhaseBootloader, PhaseKernelLoad, PhaseKernel, PhaseInit, PhaseUserspace}

// Begin is where a boot's phases start: its reset when the console
// showed it, else its first byte.
func (b Boot) Begin() time.Time {
	if !b.Reset.IsZero() {
		return b.Reset
	}
	return b.Start
}

// Phases divides b at the marks it saw, from its Begin, each phase ending
// at its mark; a mark not seen (no bootloader in a direct boot, no init
// line) merges its phase into the next one. It is empty without a prompt.
func (b Boot) Phases() []Phase {
	if b.Prompt.IsZero() {
		return nil
	}
	ends := []time.Time{b.Banner, b.Handover, b.Kernel, b.RootMount, b.Init, b.Prompt}
	var out []Phase
	prev := b.Begin()
	for i, t := range ends {
		if t.IsZero() || t.Before(prev) {
			continue
		}
		if d := t.Sub(prev); d > 0 || i == len(ends)-1 {
			out = append(out, Phase{PhaseNames[i], d})
		}
		prev = t
	}
	return out
}

// phaseMetrics are a boot-timed result's host metrics of boot b: each
// phase as "phase_<name>", and "host_power_on", from the reset (or the
// first byte) to the prompt.
func phaseMetrics(b Boot) []resultframe.Metric {
	ps := b.Phases()
	if len(ps) == 0 {
		return nil
	}
	out := make([]resultframe.Metric, 0, len(ps)+1)
	for _, p := range ps {
		out = append(out, resultframe.Metric{Name: "phase_" + p.Name, Value: p.Duration.Seconds(), Unit: "s"})
	}
	return append(out, resultframe.Metric{Name: "host_power_on", Value: b.Prompt.Sub(b.Begin()).Seconds(), Unit: "s"})
}
