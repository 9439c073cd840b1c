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
}

// Defaults for the boot milestones: the kernel's own root mount line, or
// the one fsbench's initramfs prints; the getty's login prompt.
var (
	DefaultRootMount = regexp.MustCompile(`Mounted root`)
	DefaultPrompt    = regexp.MustCompile(`login:`)
)

// kernelBanner is the kernel's first console line, which starts a boot.
var kernelBanner = regexp.MustCompile(`Linux version [0-9]`)

// Boot is one boot seen on the console.
type Boot struct {
	N         int       // from 1
	Start     time.Time // first line of the boot
	RootMount time.Time // zero when not seen
	// Ready is the runner's ready line (runplan.ReadyMessage), the end of
	// the boot on the target's clock; zero when not seen.
	Ready  time.Time
	Prompt time.Time // zero when not seen
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
	if opt.RootMount == nil {
		opt.RootMount = DefaultRootMount
	}
	if opt.Prompt == nil {
		opt.Prompt = DefaultPrompt
	}
	f := &follower{opt: opt, dec: resultframe.NewDecoder(), sum: &Summary{}}
	rd := capture.NewReader(src, opt.Idle)
	rd.Raw = opt.Raw
	defer rd.Close()
	for {
		lctx, cancel := ctx, context.CancelFunc(func() {})
		if opt.Silence > 0 {
			lctx, cancel = context.WithTimeout(ctx, opt.Silence)
		}
		l, err := rd.Next(lctx)
		silent := opt.Silence > 0 && errors.Is(lctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if err != nil {
			f.end()
			switch {
			case silent:
				f.sum.Stop = "silence"
				return f.sum, fmt.Errorf("the console was silent for %s", opt.Silence)
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
			return f.sum, err
		}
		if opt.StopWhenComplete && f.sum.Complete {
			f.end()
			f.sum.Stop = "complete"
			return f.sum, nil
		}
	}
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
	// panics boot after boot (a broken init, a missing driver) would
	// otherwise reboot until the run's timeout.
	panics int
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
		switch {
		case kernelBanner.MatchString(text):
			if f.boot == nil || !f.boot.RootMount.IsZero() {
				f.newBoot(l.Start, false)
			}
		case f.opt.RootMount.MatchString(text):
			f.newBoot(l.Start, true)
		}
		if err := f.logLine(l); err != nil {
			return err
		}
	}
	if f.boot == nil {
		f.newBoot(l.Start, false) // output before any root mount: the first boot
	}
	if f.boot.Ready.IsZero() && !f.boot.RootMount.IsZero() && strings.Contains(text, runplan.ReadyMessage) {
		f.boot.Ready = l.Start
	}
	if f.boot.Prompt.IsZero() && !f.boot.RootMount.IsZero() && f.opt.Prompt.MatchString(trimEOL(text)) {
		f.boot.Prompt = l.Start
		f.release()
	}
	if l.Partial {
		return nil
	}
	if !l.Partial && kernelPanic.MatchString(text) {
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

// newBoot starts a boot at a root mount line. The first boot starts at
// the first line; it gets its root mount when that line follows.
func (f *follower) newBoot(t time.Time, rootMount bool) {
	if rootMount && f.boot != nil && f.boot.RootMount.IsZero() {
		f.boot.RootMount, f.base = t, t
		return
	}
	f.release()
	if f.boot != nil && f.opt.OnBoot != nil {
		f.opt.OnBoot(*f.boot)
	}
	f.sum.Boots = append(f.sum.Boots, Boot{N: len(f.sum.Boots) + 1, Start: t})
	f.boot = &f.sum.Boots[len(f.sum.Boots)-1]
	if rootMount {
		f.boot.RootMount, f.base = t, t
	}
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
