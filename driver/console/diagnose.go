package console

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// ErrBootFailed is what a BootFailure is: a boot that cannot go on.
var ErrBootFailed = errors.New("the boot cannot go on")

// BootFailure is a boot recognised on the console as one that cannot go
// on: the bootloader found nothing to boot, the kernel could not mount
// the root filesystem, the root device never appeared, the kernel
// panicked before the root mount. Follow returns it at once, rather than
// waiting for the run's timeout.
type BootFailure struct {
	Boot   int    // the boot's number, from 1
	Reason string // what went wrong and what to look at
	// Seen is when the console showed it: the line recognised, or the
	// one that began the wait for the root device.
	Seen time.Time
	// Lines are the console lines that show it: the notable lines of the
	// boot (bootloader errors, the root device waited for), then the last
	// ones before the failure.
	Lines []string
}

func (e *BootFailure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "boot %d: %s", e.Boot, e.Reason)
	if len(e.Lines) > 0 {
		b.WriteString("; the console showed:")
		for _, l := range e.Lines {
			b.WriteString("\n    " + l)
		}
	}
	return b.String()
}

func (e *BootFailure) Is(target error) bool { return target == ErrBootFailed }

// DefaultRootWait is how long a boot may wait for its root device, from
// the line that says it waits, before Follow calls it failed.
const DefaultRootWait = 10 * time.Second

// fatal are console lines after which a boot cannot go on. before limits
// one to the part of the boot before the root mount: after it, the same
// line may belong to a test (a panic under test is counted, MaxPanics).
var fatal = []struct {
	re     *regexp.Regexp
	reason string
	before bool
}{
	{regexp.MustCompile(`No filesystem could mount root, tried:`), "no filesystem driver in the kernel could mount the root device (is rootfstype's driver built in, or its module in the initramfs?)", false},
	{regexp.MustCompile(`VFS: Unable to mount root fs|VFS: Cannot open root device`), "the kernel could not mount the root filesystem (does root= name the right partition, and is its filesystem's driver there?)", false},
	{regexp.MustCompile(`fsbench-init: error: `), "fsbench's initramfs could not start the root filesystem", false},
	{regexp.MustCompile(`fsbench-runner: error: `), "the runner stopped with an error and cannot go on with the plan", false},
	{regexp.MustCompile(`No working init found|Requested init \S+ failed`), "the root filesystem has no init the kernel can start", true},
	{kernelPanic, "the kernel panicked before it mounted the root filesystem", true},
}

// ubootPrompt is U-Boot's command prompt, which its distro boot falls back
// to when no device had anything to boot.
var ubootPrompt = regexp.MustCompile(`^\s*(=>|U-Boot>)\s*$`)

// waitingForRoot is the kernel's or fsbench's initramfs's line that the
// root device is not there yet.
var waitingForRoot = regexp.MustCompile(`Waiting for root device|waiting up to \S+ for root device`)

// notable are lines worth showing with a failure: what the bootloader
// tried and what it could not do.
var notable = regexp.MustCompile(`(?i)Retrieving file|Found U-Boot script|Found /\S*extlinux|Scanning \S+ [0-9]+:|SCRIPT FAILED|Wrong Image|Bad Linux|Bad gzipped|Did not find|File not found|Failed to load|Skipping|unknown device|Unable to mount|Waiting for root device|waiting up to|\berror\b`)

// trail keeps the last lines of a boot, and its notable ones, to show
// with a failure.
type trail struct {
	last    []string
	notable []string
}

const (
	trailLast    = 8
	trailNotable = 8
)

func (t *trail) reset() { t.last, t.notable = t.last[:0], t.notable[:0] }

func (t *trail) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	if notable.MatchString(line) {
		if len(t.notable) == trailNotable {
			t.notable = append(t.notable[:trailNotable/2], t.notable[trailNotable/2+1:]...)
		}
		t.notable = append(t.notable, line)
	}
	if len(t.last) == trailLast {
		t.last = append(t.last[:0], t.last[1:]...)
	}
	t.last = append(t.last, line)
}

// lines are the notable lines, then the last ones not already among them.
func (t *trail) lines() []string {
	out := append([]string(nil), t.notable...)
	for _, l := range t.last {
		dup := false
		for _, n := range t.notable {
			dup = dup || n == l
		}
		if !dup {
			out = append(out, l)
		}
	}
	return out
}

// diagnose looks at a line of the current boot, which began at at, for a
// failure.
func (f *follower) diagnose(text string, partial bool, at time.Time) *BootFailure {
	b := f.boot
	fail := func(reason string) *BootFailure {
		return &BootFailure{Boot: b.N, Reason: reason, Lines: f.trail.lines(), Seen: at}
	}
	if !b.Banner.IsZero() && b.Handover.IsZero() && b.Kernel.IsZero() && ubootPrompt.MatchString(text) {
		return fail("the bootloader found nothing it could boot on any device and stopped at its prompt " +
			"(is extlinux/extlinux.conf or boot.scr on the boot partition, and is that partition bootable or the first?)")
	}
	if partial {
		return nil
	}
	for _, s := range fatal {
		if s.re.MatchString(text) && (!s.before || b.RootMount.IsZero()) {
			return fail(s.reason)
		}
	}
	if b.RootMount.IsZero() && f.rootWaitSince.IsZero() && waitingForRoot.MatchString(text) {
		f.rootWaitSince = at
	}
	return nil
}

// rootWaitLeft is how long the boot may still wait for its root device,
// and whether it waits at all.
func (f *follower) rootWaitLeft() (time.Duration, bool) {
	if f.rootWaitSince.IsZero() || f.boot == nil || !f.boot.RootMount.IsZero() {
		return 0, false
	}
	return f.opt.RootWait - time.Since(f.rootWaitSince), true
}

// rootWaitFailure is the failure of a boot whose root device did not
// appear in time.
func (f *follower) rootWaitFailure() *BootFailure {
	return &BootFailure{Boot: f.boot.N, Lines: f.trail.lines(), Seen: f.rootWaitSince,
		Reason: fmt.Sprintf("the root device did not appear within %s of the boot starting to wait for it (does root= name a partition of this disk, and is the disk's driver there?)", f.opt.RootWait)}
}
