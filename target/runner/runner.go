// Package runner is the target side of fsbench: it executes the compiled
// plan (package runplan) that fsbench build baked into the image, one step
// and one iteration at a time, keeps its progress in a state file that
// survives reboots and power cuts, and reports every result twice: as a
// checksummed frame on the console (package resultframe), which fsbench
// capture decodes on the host, and as a line of a JSONL file on the target.
//
// It lives under target/ because it runs on the board: it links only the
// standard library, golang.org/x/sys, the wire packages and the other
// target packages (a test of package importrules checks it), so the static
// runner binary stays small for every board architecture. It must never
// import a host package, and it never reads the spec: what a recipe needs
// and how long a step may take come from the compiled plan.
//
// It holds the engine (runner.go: the loop over steps and iterations,
// settling, reboots), its state (state.go, journal.go) and the recipes:
// each recipe's target side is one file here that registers itself under
// the recipe's name and schema (registry.go, step.Recipe). What the
// recipes use lives in packages of their own: what a step sees of the
// runner (step), the workloads (workload), the crash machinery (crash),
// the I/O accounting (ioacct), the filesystem checker (fsck), Linux's
// interfaces (linux, devmapper) and fio (fio).
package runner

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/fsbench/fsbench/internal/stats"
	"github.com/fsbench/fsbench/target/ioacct"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// MaxAttempts is how often an iteration may be started without finishing
// (a crash or power cut in the middle) before it is recorded as failed.
const MaxAttempts = 3

// Options configures a run.
type Options struct {
	Plan *runplan.Plan
	// StateDir overrides the plan's state directory (tests).
	StateDir string
	// Console receives progress lines and result frames.
	Console io.Writer
	// Finally is what to do when the plan is done: "" or "stay" (exit),
	// "poweroff" or "reboot". The kernel's fsbench.finally= sets it on
	// the target.
	Finally string
	// Reboot performs a reboot or power off ("reboot", "poweroff");
	// nil asks init and falls back to reboot(2).
	Reboot func(cmd string) error
	// BootID overrides the kernel's boot id (tests).
	BootID string
	// LAVA also prints each result as a LAVA test-case signal, which a
	// LAVA lab's log parser records without fsbench on the host. The
	// kernel's fsbench.lava=1 sets it on the target.
	LAVA bool
}

// Status is how a run call ended.
type Status int

// How Run ends.
const (
	Complete  Status = iota // every step ran
	Rebooting               // a step asked for a reboot, which was started
)

// Run executes the plan from where the state file says it stopped.
func Run(ctx context.Context, opt Options) (Status, error) {
	r, err := newRun(opt)
	if err != nil {
		return Complete, err
	}
	defer r.close()
	return r.run(ctx)
}

type run struct {
	opt  Options
	plan *runplan.Plan
	st   *State
	sf   stateFile
	jl   *journal
	out  io.Writer
	// consoleBytes counts what the runner writes to the console in its
	// log lines and the lines recipes print: the write accounting takes
	// them out of the workload's bytes.
	consoleBytes atomic.Int64
	// host is the host's counters' port (hostport.go); hostOpened says
	// whether this boot looked for it.
	host       *ioacct.HostPort
	hostOpened bool
	boot       string
	dir        string // the state directory
	attrs      map[string]string
}

func newRun(opt Options) (*run, error) {
	if opt.Plan == nil {
		return nil, errors.New("no plan")
	}
	dir := opt.StateDir
	if dir == "" {
		var err error
		if dir, err = stateDir(opt.Plan); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	r := &run{opt: opt, plan: opt.Plan, out: opt.Console, boot: opt.BootID, dir: dir}
	if r.out == nil {
		r.out = io.Discard
	}
	if r.boot == "" {
		r.boot = bootID()
	}
	r.sf = stateFile{filepath.Join(dir, "state.json")}
	removePartials(r.sf.path)
	st, err := r.sf.load()
	if err != nil {
		return nil, err
	}
	if st != nil && st.Fingerprint != r.plan.Fingerprint {
		r.logf("the state file belongs to another plan (%s); starting a new run", st.Fingerprint)
		st = nil
	}
	if st == nil {
		st = &State{RunID: newRunID(), Fingerprint: r.plan.Fingerprint, Iter: 1}
	}
	if st.BootID != r.boot {
		st.Boots++
		st.BootID = r.boot
		st.BootWork = false
	}
	r.st = st
	if err := r.sf.save(st); err != nil {
		return nil, fmt.Errorf("writing the state file: %w", err)
	}
	if r.jl, err = openJournal(filepath.Join(dir, "results.jsonl")); err != nil {
		return nil, err
	}
	r.attrs = map[string]string{"kernel": kernelRelease(), "runner": Version}
	return r, nil
}

func (r *run) close() {
	if r.jl != nil {
		r.jl.close()
	}
}

// newRunID draws a run id from the kernel's random source (getrandom(2),
// not crypto/rand, whose DRBG and math/big would grow the runner by a
// tenth).
func newRunID() string {
	b := make([]byte, 8)
	if _, err := unix.Getrandom(b, 0); err != nil {
		binary.LittleEndian.PutUint64(b, uint64(monoNS()))
	}
	return hex.EncodeToString(b)
}

func (r *run) logf(format string, args ...any) {
	r.write(fmt.Sprintf("fsbench-runner: "+format+"\n", args...))
}

// write writes s to the console and counts it.
func (r *run) write(s string) {
	n, _ := io.WriteString(r.out, s)
	r.consoleBytes.Add(int64(n))
}

// hostPort opens the host's counters' port once a boot; nil when the
// target has none.
func (r *run) hostPort() *ioacct.HostPort {
	if !r.hostOpened {
		r.hostOpened = true
		var err error
		if r.host, err = ioacct.OpenHostPort("/sys", "/dev"); err != nil {
			r.logf("%v", err)
		}
	}
	return r.host
}

func (r *run) run(ctx context.Context) (Status, error) {
	if err := r.deliver(); err != nil {
		return Complete, err
	}
	steps := r.plan.Steps
	r.logf("run %s, boot %d, %s: step %d of %d", r.st.RunID, r.st.Boots, r.plan.Variant, min(r.st.Step+1, len(steps)), len(steps))
	for !r.st.Done {
		if err := ctx.Err(); err != nil {
			return Complete, err
		}
		if r.st.Step >= len(steps) {
			if err := r.finishPlan(); err != nil {
				return Complete, err
			}
			break
		}
		reboot, err := r.step(ctx, steps[r.st.Step])
		if err != nil {
			return Complete, err
		}
		if reboot {
			return Rebooting, r.shutdown("reboot")
		}
	}
	switch r.opt.Finally {
	case "poweroff", "reboot":
		return Complete, r.shutdown(r.opt.Finally)
	}
	return Complete, nil
}

// finishPlan emits the plan's closing result, which tells the host that
// the run is complete and how many results it should hold.
func (r *run) finishPlan() error {
	res := resultframe.PlanComplete(r.st.Seq+1, r.st.Boots) // this one included
	r.st.Done = true
	if err := r.record(res); err != nil {
		return err
	}
	// A LAVA job's monitor ends at this line (CompleteMessage).
	r.logf("%s: %d results in %d boots", runplan.CompleteMessage, r.st.Seq, r.st.Boots)
	return nil
}

func (r *run) shutdown(cmd string) error {
	r.logf("%s", cmd)
	// Nothing of ours may stay open for writing, or init cannot remount
	// the root filesystem read-only and the next boot replays a journal.
	r.close()
	r.jl = nil
	if r.opt.Reboot != nil {
		return r.opt.Reboot(cmd)
	}
	if r.plan.Board.Userland == "busybox" {
		err := quickShutdown(cmd)
		r.logf("%s without init failed (%v); asking init", cmd, err)
	}
	return shutdown(cmd)
}

// step runs the current iteration of s and records its outcome. It reports
// whether the target must reboot now.
func (r *run) step(ctx context.Context, s runplan.Step) (bool, error) {
	rec, ok := registry[s.Recipe]
	base := resultframe.Result{Recipe: s.Recipe, Name: s.Test, Case: s.Case, Iteration: r.st.Iter}
	if !ok {
		base.Status, base.Error = resultframe.StatusSkipped, fmt.Sprintf("this runner (%s) does not execute %s tests", Version, s.Recipe)
		return false, r.advanceStep(base)
	}
	if s.NotApplicable != "" {
		base.Status, base.Error = resultframe.StatusSkipped, "not applicable: "+s.NotApplicable
		base.Attrs = map[string]string{"not_applicable": s.NotApplicable}
		return false, r.advanceStep(base)
	}
	if s.Schema != rec.Schema {
		base.Status, base.Error = resultframe.StatusSkipped, fmt.Sprintf("the plan's %s step has schema %d; this runner (%s) implements schema %d: build the image and the runner with the same fsbench", s.Recipe, s.Schema, Version, rec.Schema)
		return false, r.advanceStep(base)
	}
	n := s.Iterations
	if r.st.Finishing {
		return false, r.finishStep(ctx, rec, s)
	}
	if r.st.Attempts >= MaxAttempts {
		base.Status = resultframe.StatusFailed
		base.Error = fmt.Sprintf("interrupted %d times (crash, reset or power cut while it ran)", r.st.Attempts)
		return false, r.advance(ctx, rec, s, base, r.last(s, &base), false)
	}

	e := r.env(s)
	e.FreshBoot = !r.st.BootWork
	r.st.Attempts++
	r.st.BootWork = true
	if err := r.sf.save(r.st); err != nil {
		return false, err
	}
	timeout := s.IterationTimeout()
	if s.Settle != nil {
		r.logf("%s iteration %d (at most %d, until settled)", s.ID(), r.st.Iter, n)
	} else {
		r.logf("%s iteration %d/%d", s.ID(), r.st.Iter, n)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	var acct *ioacct.Account
	if s.AccountIO && e.Part != nil {
		var err error
		if acct, err = ioacct.Start(e.Part, &r.consoleBytes, r.hostPort()); err != nil {
			r.logf("%s: no write accounting: %v", s.ID(), err)
		}
	}
	base.StartNS = monoNS()
	out, err := rec.Iterate(cctx, e, r.st.Iter)
	base.EndNS = monoNS()
	timedOut := cctx.Err() == context.DeadlineExceeded
	cancel()
	e.Cleanup()
	if notes := e.CleanerNotes(); err == nil && out != nil && len(notes) > 0 {
		out.Attr("cleaner", strings.Join(notes, "; "))
	}
	if acct != nil {
		if err == nil && !timedOut && out != nil && !out.Reboot {
			if aerr := acct.Finish(out); aerr != nil {
				r.logf("%s: no write accounting: %v", s.ID(), aerr)
			}
		}
		acct.Stop()
	}
	r.st.Scratch = e.Scratch
	if err == nil && out != nil && out.Reboot {
		r.st.Attempts--
		return true, r.sf.save(r.st)
	}
	switch {
	case timedOut:
		base.Status, base.Error = resultframe.StatusFailed, fmt.Sprintf("timed out after %s", timeout)
	case errors.As(err, new(*step.SkipError)):
		base.Status, base.Error = resultframe.StatusSkipped, err.Error()
	case err != nil:
		base.Status, base.Error = resultframe.StatusFailed, err.Error()
	default:
		base.Status = resultframe.StatusOK
		base.Metrics = out.Metrics
		base.Attrs = out.Attrs
	}
	last := r.last(s, &base)
	reboot := err == nil && out != nil && out.RebootAfter && !last
	if err := r.advance(ctx, rec, s, base, last, reboot); err != nil {
		return false, err
	}
	return reboot, nil
}

// env is what a recipe sees of step s.
func (r *run) env(s runplan.Step) *step.Env {
	e := &step.Env{Plan: r.plan, Step: s, P: &runplan.Reader{P: s.Params}, Scratch: r.st.Scratch,
		BootID: r.boot, StateDir: r.dir, Log: r.logf}
	if s.On != "" {
		e.Part, _ = r.plan.Partition(s.On)
	}
	if r.st.Step+1 < len(r.plan.Steps) {
		e.Later = r.plan.Steps[r.st.Step+1:]
	}
	e.Print = func(line string) { r.write(line + "\n") }
	e.Saver = func(scratch json.RawMessage) error {
		r.st.Scratch = scratch
		return r.sf.save(r.st)
	}
	return e
}

// last says whether res is the step's last result: its Iterations are
// done, or its settle rule is met. Under a settle rule it adds res's
// metrics to the step's samples and writes the rule's state into res:
// attribute settle ("continue", "settled" or "max") and settle_ci, the
// widest relative half-width of the metrics' intervals so far.
func (r *run) last(s runplan.Step, res *resultframe.Result) bool {
	if s.Settle == nil {
		return r.st.Iter >= s.Iterations
	}
	if r.st.Samples == nil {
		r.st.Samples = map[string][]float64{}
	}
	if res.Status == resultframe.StatusOK {
		for _, m := range res.Metrics {
			if slices.Contains(s.Settle.Metrics, m.Name) {
				r.st.Samples[m.Name] = append(r.st.Samples[m.Name], m.Value)
			}
		}
	}
	d := settleDecision(*s.Settle, s.Iterations, r.st.Samples, r.st.Iter)
	if res.Attrs == nil {
		res.Attrs = map[string]string{}
	}
	res.Attrs["settle"] = string(d.Reason)
	if !math.IsNaN(d.Width) {
		res.Attrs["settle_ci"] = strconv.FormatFloat(100*d.Width, 'f', 2, 64) + "%"
	}
	width := res.Attrs["settle_ci"]
	if width == "" {
		width = "unknown"
	}
	switch d.Reason {
	case stats.Settled:
		r.logf("%s: settled after %d iterations: the 95%% interval of the mean is within ±%s (target ±%g%%)",
			s.ID(), r.st.Iter, width, 100*s.Settle.CI)
	case stats.MaxN:
		r.logf("%s: not settled after the most iterations, %d: the 95%% interval of the mean is ±%s (target ±%g%%, at least %d results)",
			s.ID(), r.st.Iter, width, 100*s.Settle.CI, s.Settle.Min)
	}
	return d.Stop()
}

// settleDecision applies a step's settle rule to every metric it
// samples: the step is settled when each metric measured so far is (and
// one was), and its width is the widest known.
func settleDecision(st runplan.Settle, maxN int, samples map[string][]float64, taken int) stats.Decision {
	rule := stats.Rule{CI: st.CI, Min: st.Min, Max: maxN}
	settled, measured, width := true, false, math.NaN()
	for _, m := range st.Metrics {
		if len(samples[m]) == 0 {
			continue
		}
		measured = true
		d := rule.Decide(samples[m], taken)
		settled = settled && d.Reason == stats.Settled
		if !math.IsNaN(d.Width) && (math.IsNaN(width) || d.Width > width) {
			width = d.Width
		}
	}
	out := stats.Decision{Reason: stats.Continue, Width: width}
	switch {
	case measured && settled:
		out.Reason = stats.Settled
	case taken >= maxN:
		out.Reason = stats.MaxN
	}
	return out
}

// advance records the iteration's result and moves to the next iteration,
// or to the step's Finish after the last.
func (r *run) advance(ctx context.Context, rec step.Recipe, s runplan.Step, res resultframe.Result, last, reboot bool) error {
	r.st.Attempts = 0
	if !last {
		r.st.Iter++
		return r.record(res)
	}
	r.st.Finishing = true
	if err := r.record(res); err != nil {
		return err
	}
	if reboot {
		return nil
	}
	return r.finishStep(ctx, rec, s)
}

func (r *run) finishStep(ctx context.Context, rec step.Recipe, s runplan.Step) error {
	if rec.Finish != nil {
		e := r.env(s)
		err := rec.Finish(ctx, e)
		e.Cleanup()
		if err != nil {
			r.logf("%s: cleaning up: %v", s.ID(), err)
		}
	}
	r.st.Finishing = false
	r.st.Step++
	r.st.Iter = 1
	r.st.Scratch = nil
	r.st.Samples = nil
	return r.sf.save(r.st)
}

// advanceStep records res and skips the rest of the step.
func (r *run) advanceStep(res resultframe.Result) error {
	r.st.Step++
	r.st.Iter = 1
	r.st.Attempts = 0
	r.st.Scratch = nil
	r.st.Samples = nil
	return r.record(res)
}

// record gives res the next sequence number and saves it as pending together
// with the progress already made, then delivers it.
func (r *run) record(res resultframe.Result) error {
	r.st.Seq++
	res.RunID = r.st.RunID
	res.Seq = r.st.Seq
	res.BootID = r.boot
	res.Variant = r.plan.Variant
	if res.Attrs == nil {
		res.Attrs = map[string]string{}
	}
	for k, v := range r.attrs {
		if _, ok := res.Attrs[k]; !ok && v != "" {
			res.Attrs[k] = v
		}
	}
	r.st.Pending = append(r.st.Pending, res)
	if err := r.sf.save(r.st); err != nil {
		return err
	}
	return r.deliver()
}

// deliver appends pending results to the journal, prints their frames and
// clears them.
func (r *run) deliver() error {
	if len(r.st.Pending) == 0 {
		return nil
	}
	for _, res := range r.st.Pending {
		if err := r.jl.append(res); err != nil {
			return fmt.Errorf("results journal: %w", err)
		}
		lines, err := resultframe.Encode(res)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if _, err := io.WriteString(r.out, l+"\n"); err != nil {
				return err
			}
		}
		if r.opt.LAVA {
			if _, err := io.WriteString(r.out, lavaSignal(res)+"\n"); err != nil {
				return err
			}
		}
	}
	drain(r.out)
	r.st.Pending = nil
	return r.sf.save(r.st)
}

// drain waits until a serial console has sent everything written to it
// (tcdrain), so that what the next step makes the kernel print does not
// land in the middle of a frame: the kernel writes to the console
// directly, past the tty's buffer. Anything but a tty is left alone.
func drain(w io.Writer) {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		unix.IoctlSetInt(int(f.Fd()), unix.TCSBRK, 1)
	}
}

// stateDir is the plan's state directory, on its state partition, which
// the runner mounts when it is not the root filesystem.
func stateDir(p *runplan.Plan) (string, error) {
	part, ok := p.Partition(p.StatePartition)
	if !ok || part.Root {
		return p.StateDir, nil
	}
	mnt, err := (&step.Env{}).MountPart(part)
	if err != nil {
		return "", fmt.Errorf("mounting the state partition %s: %w", part.Name, err)
	}
	return filepath.Join(mnt, p.StateDir), nil
}
