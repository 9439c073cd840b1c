package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// fsTypes lists the filesystem types of the plan's partitions.
func fsTypes(p *runplan.Plan) []string {
	var out []string
	for _, part := range p.Partitions {
		if part.FS != "" && !slices.Contains(out, part.FS) {
			out = append(out, part.FS)
		}
	}
	return out
}

// testModules are the kernel modules the plan's tests load.
func testModules(p *runplan.Plan) []string {
	var out []string
	for _, s := range p.Steps {
		for _, m := range s.Needs.Modules {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// NeedsWatchdog says whether a test arms the board's watchdog.
func NeedsWatchdog(p *runplan.Plan) bool {
	return slices.ContainsFunc(p.Steps, func(s runplan.Step) bool { return s.Needs.Watchdog })
}

// NeedsHostCounters reports whether a step of p counts its writes: in
// QEMU the runner then checks its counters with the emulator's
// (qemu.Machine.HostCounters).
func NeedsHostCounters(p *runplan.Plan) bool {
	return slices.ContainsFunc(p.Steps, func(s runplan.Step) bool { return s.AccountIO })
}

// PlanTimeout bounds a whole run: every iteration of every step may take
// its timeout, plus two minutes per boot.
func PlanTimeout(p *runplan.Plan) time.Duration {
	total := 5 * time.Minute
	for _, s := range p.Steps {
		total += time.Duration(s.Iterations) * (s.IterationTimeout() + 2*time.Minute)
	}
	return total
}

// Silence is how long the console may stay quiet: the longest step
// timeout, plus a margin for a boot.
func Silence(p *runplan.Plan) time.Duration {
	longest := time.Duration(0)
	for _, s := range p.Steps {
		longest = max(longest, s.IterationTimeout())
	}
	return longest + 3*time.Minute
}

// bootTimed says which results measured the boot they were printed in:
// those of the steps whose boots the host times.
func bootTimed(p *runplan.Plan) func(resultframe.Result) bool {
	timed := map[[3]string]bool{}
	for _, s := range p.Steps {
		if s.HostTimesBoot {
			timed[[3]string{s.Recipe, s.Test, s.Case}] = true
		}
	}
	return func(r resultframe.Result) bool { return timed[[3]string{r.Recipe, r.Name, r.Case}] }
}

// bootTimedStep is the first step whose boots the host times, which
// names the console lines that delimit a boot.
func bootTimedStep(p *runplan.Plan) *runplan.Step {
	for i := range p.Steps {
		if p.Steps[i].HostTimesBoot {
			return &p.Steps[i]
		}
	}
	return nil
}

// bootPatterns sets the console's boot marks from boot_time's
// parameters: the root mount and prompt patterns replace the defaults,
// the other marks' patterns add to them.
func bootPatterns(s *runplan.Step, o *console.Options) error {
	r := runplan.Reader{P: s.Params}
	set := []struct {
		name string
		dst  **regexp.Regexp
		def  *regexp.Regexp // nil: the pattern replaces the default
	}{
		{"root_mount_pattern", &o.RootMount, nil},
		{"prompt_pattern", &o.Prompt, nil},
		{"banner_pattern", &o.Marks.Banner, console.DefaultBanner},
		{"handover_pattern", &o.Marks.Handover, console.DefaultHandover},
		{"kernel_pattern", &o.Marks.Kernel, console.DefaultKernel},
		{"init_pattern", &o.Marks.Init, console.DefaultInit},
	}
	for _, m := range set {
		src := r.String(m.name)
		if r.Err != nil {
			return r.Err
		}
		if src == "" && m.def != nil {
			continue
		}
		if m.def != nil {
			src = "(?:" + m.def.String() + ")|(?:" + src + ")"
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		*m.dst = re
	}
	return nil
}

// copySparse copies a sparse image, keeping its holes: only the data
// ranges (SEEK_DATA/SEEK_HOLE) are read and written.
func copySparse(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := out.Truncate(fi.Size()); err != nil {
		return err
	}
	size := fi.Size()
	for off := int64(0); off < size; {
		data, err := unix.Seek(int(in.Fd()), off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			return err
		}
		hole, err := unix.Seek(int(in.Fd()), data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.NewOffsetWriter(out, data), io.NewSectionReader(in, data, hole-data)); err != nil {
			return err
		}
		off = hole
	}
	return out.Close()
}
