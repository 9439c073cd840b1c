// Package console follows a target's serial console through a whole test
// plan on the host: it stamps every line as it arrives (package capture),
// splits the stream into boots, times each boot from the root mount line to
// the login prompt, decodes the runner's result frames (package
// resultframe), adds the host's view to them (the serial boot time, the
// target's description) and appends them to a results store. It ends when
// the runner reports the plan complete and the console closes, or when the
// context ends.
//
// It sits under driver/, whose runs are its only user; `fsbench capture`
// reads a console with package capture alone. It knows no recipe: which
// results get the host's boot time the caller says (Options.BootTimed,
// from the plan). It must never accept a result from a corrupted frame or
// store one twice.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Options configure Follow.
type Options struct {
	// RootMount and Prompt delimit a boot on the console; nil takes
	// DefaultRootMount and DefaultPrompt.
	RootMount, Prompt *regexp.Regexp
	// Log receives every line as "[abs delta] line", grabserial style,
	// with the time base reset at each root mount.
	Log io.Writer
	// Raw receives the exact bytes.
	Raw io.Writer
	// Store receives each new result once; nil keeps them only in the
	// Summary.
	Store *Store
	// Attrs are added to every result (target, machine, kernel, ...).
	Attrs map[string]string
	// BootTimed reports whether a result measured the boot it was
	// printed in (the plan's steps that the host times the boots of):
	// such a result waits for its boot's prompt and gets the host's
	// interval. nil times none.
	BootTimed func(resultframe.Result) bool
	// OnResult and OnBoot report progress; either may be nil.
	OnResult func(resultframe.Result)
	OnBoot   func(Boot)
	// Idle is how long a partial line waits before it is looked at (a
	// prompt has no newline); 0 is capture.DefaultIdle.
	Idle time.Duration
	// Silence ends the run when the console stays quiet this long; 0 never.
	Silence time.Duration
	// StopWhenComplete ends Follow at the runner's closing result instead
	// of the end of the input: a board stays on, QEMU powers off.
	StopWhenComplete bool
	// Marks divide each boot into phases (Boot.Phases); zero fields take
	// the defaults.
	Marks Marks
	// RootWait is how long a boot may wait for its root device before
	// Follow ends with a BootFailure; 0 is DefaultRootWait.
	RootWait time.Duration
}

// Defaults for the boot milestones: the kernel's own root mount line, or
// the one fsbench's initramfs prints; the getty's login prompt.
var (
	DefaultRootMount = regexp.MustCompile(`Mounted root`)
	DefaultPrompt    = regexp.MustCompile(`login:`)
)

// Boot is one boot seen on the console. Its marks are zero when not seen.
type Boot struct {
	N int // from 1
	// Start is the boot's first byte: the first line after the previous
	// boot's restart line, or the line that showed a new boot had begun
	// (a banner, the kernel's first line, a root mount).
	Start time.Time
	// Reset is the previous boot's restart line, the moment the machine
	// reset: zero for the first boot and after a power cut. A target is
	// silent between the reset and its first byte (a kernel booted
	// directly prints nothing until its console driver starts).
	Reset     time.Time
	Banner    time.Time // the firmware's or bootloader's first banner
	Handover  time.Time // the bootloader starting the kernel
	Kernel    time.Time // the kernel's first line
	RootMount time.Time
	Init      time.Time // init starting, after the root mount
	// Ready is the runner's ready line (runplan.ReadyMessage), the end of
	// the boot on the target's clock.
	Ready  time.Time
	Prompt time.Time
}

// Interval is root mount to prompt, or false when either is missing.
func (b Boot) Interval() (time.Duration, bool) {
	if b.RootMount.IsZero() || b.Prompt.IsZero() {
		return 0, false
	}
	return b.Prompt.Sub(b.RootMount), true
}

// Summary is what Follow saw.
type Summary struct {
	Results  []resultframe.Result
	Problems []resultframe.Problem
	Boots    []Boot
	// Complete is set when the runner's closing result arrived; Expected
	// is the number of results it says it emitted (itself included).
	Complete bool
	Expected int
	Stop     string // "complete", "eof", "silence", "cancelled", "panic"
}

// Missing lists sequence numbers below Expected that never arrived.
func (s *Summary) Missing() []uint64 {
	have := map[uint64]bool{}
	for _, r := range s.Results {
		have[r.Seq] = true
	}
	var out []uint64
	for seq := uint64(1); seq <= uint64(s.Expected); seq++ {
		if !have[seq] {
			out = append(out, seq)
		}
	}
	return out
}

// Follow reads src until it ends or ctx is done.
func Follow(ctx context.Context, src io.Reader, opt Options) (*Summary, error) {
	rd := capture.NewReader(src, opt.Idle)
	rd.Raw = opt.Raw
	defer rd.Close()
	return follow(ctx, rd, opt, false)
}

// FollowLines follows lines its caller reads itself, from a
// capture.Reader (which has written Options.Raw's bytes already):
// `fsbench capture`, which stamps and prints the same lines. An error of
// src other than io.EOF ends it and is returned as it is.
func FollowLines(ctx context.Context, src Lines, opt Options) (*Summary, error) {
	return follow(ctx, src, opt, false)
}

// Lines is a console recorded elsewhere, line by line with the time each
// arrived (a LAVA job's log): Next returns io.EOF after the last.
type Lines interface {
	Next(ctx context.Context) (capture.Line, error)
}

// Replay follows a recorded console as Follow follows a live one, with
// no waiting: Options.Silence and the root wait's timer do not apply (the
// recorder had its own timeouts), nor Options.Raw.
func Replay(ctx context.Context, src Lines, opt Options) (*Summary, error) {
	opt.Silence = 0
	return follow(ctx, src, opt, true)
}

func follow(ctx context.Context, rd Lines, opt Options, replay bool) (*Summary, error) {
	if opt.RootMount == nil {
		opt.RootMount = DefaultRootMount
	}
	if opt.Prompt == nil {
		opt.Prompt = DefaultPrompt
	}
	if opt.RootWait <= 0 {
		opt.RootWait = DefaultRootWait
	}
	opt.Marks = opt.Marks.withDefaults()
	f := &follower{opt: opt, dec: resultframe.NewDecoder(), sum: &Summary{}}
	for {
		lctx, cancel := ctx, context.CancelFunc(func() {})
		if opt.Silence > 0 {
			lctx, cancel = context.WithTimeout(ctx, opt.Silence)
		}
		wctx, wcancel := lctx, context.CancelFunc(func() {})
		if left, waiting := f.rootWaitLeft(); waiting && !replay {
			wctx, wcancel = context.WithTimeout(lctx, max(left, 0))
		}
		l, err := rd.Next(wctx)
		waited := wctx != lctx && errors.Is(wctx.Err(), context.DeadlineExceeded) && lctx.Err() == nil
		silent := opt.Silence > 0 && errors.Is(lctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		wcancel()
		cancel()
		if err != nil && waited {
			f.sum.Stop = "boot-failed"
			return f.sum, f.rootWaitFailure()
		}
		if err != nil {
			f.end()
			switch {
			case silent:
				f.sum.Stop = "silence"
				return f.sum, f.silenceError()
			case ctx.Err() != nil:
				f.sum.Stop = "cancelled"
				return f.sum, ctx.Err()
			case errors.Is(err, io.EOF):
				f.sum.Stop = "eof"
				if f.sum.Complete {
					f.sum.Stop = "complete"
				}
				return f.sum, nil
			}
			return f.sum, err
		}
		if err := f.line(l); err != nil {
			if errors.Is(err, ErrBootFailed) {
				f.sum.Stop = "boot-failed"
			}
			return f.sum, err
		}
		if opt.StopWhenComplete && f.sum.Complete {
			f.end()
			f.sum.Stop = "complete"
			return f.sum, nil
		}
	}
}

// silenceError says that the console went quiet, with its last lines.
func (f *follower) silenceError() error {
	msg := fmt.Sprintf("the console was silent for %s: the board hangs, or its console is cut off", f.opt.Silence)
	if lines := f.trail.last; len(lines) > 0 {
		msg += "; the last lines were:\n    " + strings.Join(lines, "\n    ")
	}
	return errors.New(msg)
}

type follower struct {
	opt  Options
	dec  *resultframe.Decoder
	sum  *Summary
	boot *Boot
	// held are boot-timed results waiting for their boot's prompt.
	held     []resultframe.Result
	lastLine time.Time
	base     time.Time
	// panics counts kernel panics since the last result: a target that
	// panics boot after boot in its tests would otherwise reboot until the
	// run's timeout.
	panics int
	// restartAt is the kernel's restart line: the next line is the next
	// boot's first.
	restartAt time.Time
	// trail is the current boot's lines to show with a failure;
	// rootWaitSince is when it began to wait for its root device.
	trail         trail
	rootWaitSince time.Time
}

// kernelPanic is the kernel's panic line.
var kernelPanic = regexp.MustCompile(`Kernel panic - not syncing`)

// MaxPanics is how many kernel panics in a row, with no result between
// them, end Follow.
const MaxPanics = 3

// ErrPanics is Follow's error when the target's kernel panics MaxPanics
// times in a row.
var ErrPanics = errors.New("the target's kernel panicked")

func (f *follower) line(l capture.Line) error {
	text := capture.StripANSI(capture.MatchText(l))
	if l.Shown == 0 {
		f.mark(text, l.Start)
		if err := f.logLine(l); err != nil {
			return err
		}
		if !l.Partial {
			f.trail.add(trimEOL(text))
		}
	}
	b := f.boot
	if b.Ready.IsZero() && !b.RootMount.IsZero() && strings.Contains(text, runplan.ReadyMessage) {
		b.Ready = l.Start
	}
	if b.Prompt.IsZero() && !b.RootMount.IsZero() && f.opt.Prompt.MatchString(trimEOL(text)) {
		b.Prompt = l.Start
		f.release()
	}
	if bf := f.diagnose(trimEOL(text), l.Partial, l.Start); bf != nil {
		if l.Partial {
			bf.Lines = append(bf.Lines, strings.TrimSpace(trimEOL(text)))
		}
		return bf
	}
	if l.Partial {
		return nil
	}
	if kernelPanic.MatchString(text) {
		if f.panics++; f.panics >= MaxPanics {
			f.sum.Stop = "panic"
			return fmt.Errorf("%w %d times in a row without a result: %s", ErrPanics, f.panics, strings.TrimSpace(trimEOL(text)))
		}
	}
	for _, ev := range f.dec.FeedLine(trimEOL(string(l.Bytes))) {
		switch {
		case ev.Problem != nil:
			f.sum.Problems = append(f.sum.Problems, *ev.Problem)
		case ev.Result != nil:
			if err := f.result(*ev.Result); err != nil {
				return err
			}
		}
	}
	return nil
}

func trimEOL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// mark records the boot marks a new line at t shows, starting a new boot
// where it shows one has begun: the first line after a restart line; a
// banner, once the current boot got past its bootloader; the kernel's
// first line or a root mount, once it mounted its root.
func (f *follower) mark(text string, t time.Time) {
	m := &f.opt.Marks
	if f.boot == nil || !f.restartAt.IsZero() {
		f.newBoot(t)
		f.boot.Reset, f.restartAt = f.restartAt, time.Time{}
	}
	b := f.boot
	switch {
	case m.Banner.MatchString(text):
		if !b.Handover.IsZero() || !b.Kernel.IsZero() || !b.RootMount.IsZero() {
			f.newBoot(t)
		}
		if f.boot.Banner.IsZero() {
			f.boot.Banner = t
		}
	case f.opt.RootMount.MatchString(text):
		if !b.RootMount.IsZero() {
			f.newBoot(t)
		}
		f.boot.RootMount, f.base = t, t
	case m.Kernel.MatchString(text):
		if !b.RootMount.IsZero() {
			f.newBoot(t)
		}
		if f.boot.Kernel.IsZero() {
			f.boot.Kernel = t
		}
	case m.Handover.MatchString(text):
		if b.Handover.IsZero() && b.Kernel.IsZero() {
			b.Handover = t
		}
	case m.Init.MatchString(text):
		if b.Init.IsZero() && !b.RootMount.IsZero() {
			b.Init = t
		}
	case restart.MatchString(text):
		f.restartAt = t
	}
}

// newBoot ends the current boot and starts the next at t.
func (f *follower) newBoot(t time.Time) {
	f.release()
	if f.boot != nil && f.opt.OnBoot != nil {
		f.opt.OnBoot(*f.boot)
	}
	f.sum.Boots = append(f.sum.Boots, Boot{N: len(f.sum.Boots) + 1, Start: t})
	f.boot = &f.sum.Boots[len(f.sum.Boots)-1]
	f.trail.reset()
	f.rootWaitSince = time.Time{}
}

// logLine writes l grabserial style: seconds since the last root mount and
// since the previous line.
func (f *follower) logLine(l capture.Line) error {
	if f.opt.Log == nil {
		return nil
	}
	if f.base.IsZero() {
		f.base = l.Start
	}
	delta := time.Duration(0)
	if !f.lastLine.IsZero() {
		delta = l.Start.Sub(f.lastLine)
	}
	f.lastLine = l.Start
	_, err := fmt.Fprintf(f.opt.Log, "[%4.6f %2.6f] %s\n", l.Start.Sub(f.base).Seconds(), delta.Seconds(), trimEOL(l.Text()))
	return err
}

func (f *follower) result(r resultframe.Result) error {
	f.panics = 0
	if f.opt.BootTimed != nil && f.opt.BootTimed(r) {
		f.held = append(f.held, r)
		if f.boot != nil && !f.boot.Prompt.IsZero() {
			return f.releaseErr()
		}
		return nil
	}
	return f.keep(r)
}

func (f *follower) release() { _ = f.releaseErr() }

// releaseErr stores the held boot-timed results with the host's interval
// of the boot they were printed in, when it is known.
func (f *follower) releaseErr() error {
	held := f.held
	f.held = nil
	for _, r := range held {
		if f.boot != nil {
			if d, ok := f.boot.Interval(); ok {
				r.Metrics = append(r.Metrics, resultframe.Metric{Name: "host_boot", Value: d.Seconds(), Unit: "s"})
			}
			// The same two events the target times, on the host's clock.
			if b := f.boot; !b.RootMount.IsZero() && !b.Ready.IsZero() {
				r.Metrics = append(r.Metrics, resultframe.Metric{Name: "host_ready", Value: b.Ready.Sub(b.RootMount).Seconds(), Unit: "s"})
			}
			r.Metrics = append(r.Metrics, phaseMetrics(*f.boot)...)
		}
		if err := f.keep(r); err != nil {
			return err
		}
	}
	return nil
}

func (f *follower) keep(r resultframe.Result) error {
	if len(f.opt.Attrs) > 0 {
		if r.Attrs == nil {
			r.Attrs = map[string]string{}
		}
		for k, v := range f.opt.Attrs {
			if _, ok := r.Attrs[k]; !ok {
				r.Attrs[k] = v
			}
		}
	}
	if r.IsPlanComplete() {
		f.sum.Complete = true
		f.sum.Expected, _ = r.ExpectedResults()
	}
	f.sum.Results = append(f.sum.Results, r)
	if f.opt.Store != nil {
		if err := f.opt.Store.Append(r); err != nil {
			return err
		}
	}
	if f.opt.OnResult != nil {
		f.opt.OnResult(r)
	}
	return nil
}

func (f *follower) end() {
	f.release()
	if f.boot != nil && f.opt.OnBoot != nil {
		f.opt.OnBoot(*f.boot)
	}
}
