package buildsys

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/plan"
)

// Option is one kernel configuration symbol and the value a spec needs.
type Option struct {
	Name  string // without the CONFIG_ prefix
	Value string // "y" or "m"
}

// Section is a group of options with the reason they are needed, and
// what fsbench cannot name for a board it does not know (its own serial,
// MMC or watchdog driver).
type Section struct {
	Why     string
	Options []Option
	Notes   []string
}

// Fragment is a kernel configuration fragment, in the form both
// Buildroot (BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES) and Yocto (a .cfg in
// a kernel recipe's SRC_URI) merge into a defconfig.
type Fragment struct {
	Spec     string
	Variants []string
	Sections []Section
}

// KernelConfig returns the kernel configuration the variants of p need:
// root filesystems and the disk driver built in, so that the kernel
// mounts root= with rootfstype= and no initramfs; the other filesystems
// at least as modules; the serial console; what the runner reads; and the
// device mapper and watchdog its reliability tests use.
func KernelConfig(p *plan.Plan) *Fragment {
	n := Analyze(p)
	k := &kbuilder{seen: map[string][2]int{}}
	k.section("Boot without an initramfs: the kernel mounts devtmpfs itself and finds root= in the partition table.",
		kopts("y", "DEVTMPFS", "DEVTMPFS_MOUNT", "BLOCK")...)
	for _, t := range n.Tables {
		k.add(Option{partitionTable[t], "y"})
	}
	for _, b := range n.Boards {
		k.console(b)
		k.storage(b)
	}
	if len(n.RootFS) > 0 {
		k.section("Root filesystems, built in so that rootfstype= mounts them without an initramfs: "+strings.Join(n.RootFS, ", ")+".",
			k.filesystems(n, n.RootFS, "y")...)
	}
	if len(n.OtherFS) > 0 {
		k.section("The other filesystems of the images, as modules at least: "+strings.Join(n.OtherFS, ", ")+".",
			append(kopts("y", "MODULES"), k.filesystems(n, n.OtherFS, "m")...)...)
	}
	if n.HasTests {
		k.runner(n)
	}
	return &Fragment{Spec: n.Spec, Variants: n.Variants, Sections: k.sections}
}

// partitionTable maps a table type to the partition parser the kernel
// needs to find root=PARTUUID= in it.
var partitionTable = map[string]string{"gpt": "EFI_PARTITION", "mbr": "MSDOS_PARTITION"}

// runner adds what the runner and the test recipes use.
func (k *kbuilder) runner(n *Needs) {
	k.section("The runner: boot_time reads kernel log timestamps (/dev/kmsg), timed tests drop caches (/proc/sys/vm) and watch the disk's counters in /sys.",
		kopts("y", "PRINTK", "PRINTK_TIME", "PROC_FS", "PROC_SYSCTL", "SYSFS")...)
	for _, need := range n.Kernel {
		opts := kopts("y", need.Config...)
		var notes []string
		if need.Watchdog {
			for _, b := range n.Boards {
				if isQEMU(b) {
					// fsbench run gives QEMU an i6300esb, a PCI card, on both
					// x86_64 and aarch64, so one driver serves both.
					opts = append(opts, Option{"I6300ESB_WDT", "y"})
					opts = append(opts, k.pci(b)...)
				} else {
					notes = append(notes, fmt.Sprintf("Board %s: also build in its SoC's watchdog driver (a CONFIG_*_WDT); the runner arms /dev/watchdog.", b.Name))
				}
			}
		}
		k.section(need.Why, opts...)
		k.note(notes...)
	}
}

// String renders the fragment: a header, then each section as a comment
// followed by its options in name order.
func (f *Fragment) String() string {
	var b strings.Builder
	f.WriteTo(&b)
	return b.String()
}

// WriteTo writes the fragment as text.
func (f *Fragment) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Kernel configuration for %s (fsbench kconfig).\n", f.Spec)
	fmt.Fprintf(&b, "# Variants: %s.\n", strings.Join(f.Variants, ", "))
	for _, s := range f.Sections {
		if len(s.Options) == 0 && len(s.Notes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n# %s\n", s.Why)
		opts := append([]Option(nil), s.Options...)
		sort.Slice(opts, func(i, j int) bool { return opts[i].Name < opts[j].Name })
		for _, o := range opts {
			fmt.Fprintf(&b, "CONFIG_%s=%s\n", o.Name, o.Value)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "# %s\n", n)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

// Options returns every option of the fragment, by name.
func (f *Fragment) Options() map[string]string {
	out := map[string]string{}
	for _, s := range f.Sections {
		for _, o := range s.Options {
			out[o.Name] = o.Value
		}
	}
	return out
}

// kbuilder collects sections; an option appears once, in the first section
// that needs it, with the strongest value any section asked for (y over m).
type kbuilder struct {
	sections []Section
	seen     map[string][2]int // option name -> section, index in it
}

func (k *kbuilder) section(why string, opts ...Option) {
	k.sections = append(k.sections, Section{Why: why})
	for _, o := range opts {
		k.add(o)
	}
}

func (k *kbuilder) add(o Option) {
	if at, ok := k.seen[o.Name]; ok {
		if o.Value == "y" {
			k.sections[at[0]].Options[at[1]].Value = "y"
		}
		return
	}
	last := len(k.sections) - 1
	k.sections[last].Options = append(k.sections[last].Options, o)
	k.seen[o.Name] = [2]int{last, len(k.sections[last].Options) - 1}
}

func (k *kbuilder) note(notes ...string) {
	s := &k.sections[len(k.sections)-1]
	s.Notes = append(s.Notes, notes...)
}

func kopts(value string, names ...string) []Option {
	out := make([]Option, len(names))
	for i, n := range names {
		out[i] = Option{n, value}
	}
	return out
}
