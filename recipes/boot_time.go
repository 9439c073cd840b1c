package recipes

import (
	"fmt"
	"regexp"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
)

func newBootTime() *Recipe {
	return &Recipe{
		Name:          "boot_time",
		Schema:        1,
		Summary:       "Time from the kernel mounting the root filesystem to the console prompt, over repeated reboots.",
		Source:        Citation{ELC2015, "p.65-68 \"Boot time\""},
		Target:        OnRoot,
		ReadOnly:      true,
		Reboots:       true,
		Count:         "iterations",
		HostTimesBoot: true,
		Report: Report{
			Headline: []Headline{{"host_boot", "boot (serial)", "s", 1}, {"target_boot", "boot (kernel log)", "s", 1}},
			// The runner decides alone, on the boot time it measures itself.
			Settle: []string{"target_boot"}, More: []string{"kernel_to_root", "kernel_to_ready"},
			Criteria: []Criterion{{Name: "boot time", Metrics: []string{"host_boot", "target_boot"}, Weight: 2}},
			Charts: []Chart{
				{Kind: Bars, Slug: "boot-time-{test}", Title: "Boot time {test}: root mount to prompt",
					Bars: bootBars, CVLabels: true, Across: true},
				{Kind: Bars, Slug: "boot-variation-{test}", Title: "Boot time {test}: run-to-run variation",
					Bars: bootBars, CV: true, Across: true},
				{Kind: Phases, Slug: "boot-phases-{test}", Title: "Boot phases {test}: first byte to prompt", Bars: phaseBars},
			},
		},
		Fields: []fields.Field{
			iterationsField(
				// Seed 000 p.67 reports the variation between boots but not
				// their number; 10 as in the DESIGN.md sketch.
				10,
				"Number of boots measured; the report shows their mean and variation (seed 000 p.67)."),
			{
				Name: "root_mount_pattern",
				Kind: fields.String,
				// Seed 000 p.65: timed "between the mounting of the rootfs
				// and the console prompt"; the kernel prints
				// "VFS: Mounted root (ext4 filesystem) ..." at that point,
				// and fsbench's initramfs "fsbench-init: Mounted root
				// (ext4 filesystem) on /dev/vda1" when it mounts the root.
				Default: "Mounted root",
				Doc:     "Regular expression (RE2) of the console line that starts the measurement.",
			},
			{
				Name: "prompt_pattern",
				Kind: fields.String,
				// Seed 000 p.65: "the console prompt" of a buildroot rootfs
				// (p.45), whose getty prints "<hostname> login:".
				Default: "login:",
				Doc:     "Regular expression (RE2) of the console line that ends the measurement.",
			},
			markField("banner_pattern", "the firmware's or bootloader's banner, where the bootloader phase starts (fsbench knows U-Boot's, SeaBIOS's and barebox's)"),
			markField("handover_pattern", "the bootloader's last line before the kernel runs (fsbench knows U-Boot's \"Starting kernel ...\", GRUB's \"Loading Linux\" and SeaBIOS's \"Booting from ROM\")"),
			markField("kernel_pattern", "the kernel's first console line (fsbench knows \"Booting Linux on physical CPU\", \"Linux version\" and any line stamped at time zero)"),
			markField("init_pattern", "init starting on the root filesystem, after the root mount (fsbench knows the kernel's \"Run /sbin/init as init process\", Debian's TOMOYO notice and systemd's banner)"),
			{
				Name: "rootfstype",
				Kind: fields.Bool,
				// Seed 000 p.65: "The kernel rootfstype will be set to the
				// fs type in order to avoid the lookup of the filesystem."
				Default: true,
				Doc:     "Put rootfstype= in the bootargs so that the kernel does not probe filesystem types; false measures the probing too.",
			},
			{
				Name: "clock",
				Kind: fields.Enum,
				Enum: []string{"both", "host", "target"},
				// Seed 000 p.65 times on the host with grabserial;
				// DESIGN.md measures on both sides and compares.
				Default: "both",
				Doc:     "host: serial timestamps taken by fsbench capture (grabserial style); target: kernel log timestamps; both: record and compare the two.",
			},
			timeoutField(3 * time.Minute),
		},
		Check: checkBootTime,
	}
}

// markField is a pattern that adds console lines to one of the boot
// marks the host divides a boot into phases at (docs/reports.md).
func markField(name, what string) fields.Field {
	return fields.Field{Name: name, Kind: fields.String, Default: "",
		Doc: "Regular expression (RE2) of more console lines that mark " + what + "; it adds to fsbench's own patterns."}
}

func checkBootTime(p Params) []Problem {
	var probs []Problem
	for _, name := range []string{"root_mount_pattern", "prompt_pattern", "banner_pattern", "handover_pattern", "kernel_pattern", "init_pattern"} {
		s, ok := stringParam(p, name)
		if !ok {
			continue
		}
		if s == "" && name != "root_mount_pattern" && name != "prompt_pattern" {
			continue // adds nothing to the default marks
		}
		if s == "" {
			probs = append(probs, Problem{name, "Empty pattern",
				fmt.Sprintf("%s is empty and would match the first line of the boot; give the text of the console line to wait for.", name)})
			continue
		}
		if _, err := regexp.Compile(s); err != nil {
			probs = append(probs, Problem{name, "Invalid regular expression",
				fmt.Sprintf("%s %q is not a valid regular expression: %v.", name, s, err)})
		}
	}
	return probs
}

// phaseBars are a boot's phases on the host's clock, in boot order
// (console.PhaseNames): each from the mark before it to its own.
var phaseBars = []Bar{
	{Metric: "phase_firmware", Label: "firmware (to the banner)"},
	{Metric: "phase_bootloader", Label: "bootloader (to the hand-over)"},
	{Metric: "phase_kernel_load", Label: "kernel load (to its first line)"},
	{Metric: "phase_kernel", Label: "kernel (to the root mount)"},
	{Metric: "phase_init", Label: "root mount to init"},
	{Metric: "phase_userspace", Label: "userspace (to the prompt)"},
}

// bootBars are boot time as the host's serial stamps and the target's
// kernel log measure it.
var bootBars = []Bar{
	{Metric: "host_boot", Label: "serial (host_boot)", Slug: "host"},
	{Metric: "target_boot", Label: "kernel log (target_boot)", Slug: "target"},
}
