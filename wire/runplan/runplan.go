// Package runplan is the compiled test plan that fsbench build bakes into an
// image and the target runner executes: the partitions the tests use, with
// their devices and mount settings, and the test cases in the order they
// run, each with what its recipe needs compiled in. It is plain JSON with no
// HCL in it, so the static runner links only the standard library to read
// it. The host compiles it from a resolved plan (package payload); the
// runner never sees the spec.
//
// It is part of the wire, the contract of both sides: it must never import
// a host package, and a change to what either side reads here changes
// Format.
package runplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/fsbench/fsbench/wire/arch"
)

// Format names the schema. The runner refuses a plan of another format, so
// an image built by a newer fsbench says so instead of misreading it.
const Format = "fsbench-runplan/3"

// Where the payload puts things in the root filesystem.
const (
	PlanPath     = "/etc/fsbench/plan.json"
	RunnerPath   = "/usr/bin/fsbench-runner"
	DefaultState = "/var/lib/fsbench"
)

// ReadyMessage is the kernel log line that ends a boot: the start hook
// writes it as the last start script runs, just before init starts the
// getty. The runner times the boot on the target's clock up to it; the
// host sees it on the console too.
const ReadyMessage = "fsbench-runner: userspace ready"

// CompleteMessage follows "fsbench-runner: " on the console once the
// runner has printed the plan's closing result; StartMessage starts the
// line with which it begins each boot's work ("fsbench-runner: run ID,
// boot N, VARIANT: step I of M"). A LAVA job's monitor follows the plan
// from the one to the other.
const (
	CompleteMessage = "plan complete"
	StartMessage    = "run "
)

// PowerCutMarker starts the console line with which the runner asks the
// host to cut the board's power (power_loss's host_kill trigger):
// "fsbench-power-cut: N" asks for the cut N seconds after the line.
const PowerCutMarker = "fsbench-power-cut:"

// Plan is what one variant's runner executes.
type Plan struct {
	Format      string `json:"format"`
	Spec        string `json:"spec"`
	Fingerprint string `json:"fingerprint"`
	Variant     string `json:"variant"`
	Board       Board  `json:"board"`
	// StateDir holds the runner's state file and its results.jsonl. It
	// lies on a writable filesystem of the image, named by StatePartition.
	StateDir       string      `json:"state_dir"`
	StatePartition string      `json:"state_partition"`
	Partitions     []Partition `json:"partitions"`
	Steps          []Step      `json:"steps"`
}

// Board is the target as the spec names it.
type Board struct {
	Name    string    `json:"name"`
	Arch    arch.Arch `json:"arch"`
	Console string    `json:"console"`
	Init    string    `json:"init"`
	// Userland is "busybox" when fsbench assembled the root's userland
	// (contents { userland = "busybox" }): then nothing on the target
	// needs stopping before a reboot but the filesystems.
	Userland string `json:"userland,omitempty"`
	// RootWait is how long the host lets a boot wait for its root device
	// before it calls the boot failed ("" = its default), as
	// time.Duration prints it.
	RootWait string `json:"root_wait,omitempty"`
	// Endurance is what the board's flash is rated for (the spec's
	// endurance block), which the runner passes on in the results the
	// host's longevity model reads; nil when the spec has none.
	Endurance *Endurance `json:"endurance,omitempty"`
}

// Endurance is a flash device's rating, for the longevity model.
type Endurance struct {
	// Capacity is the device's user capacity in bytes.
	Capacity int64 `json:"capacity"`
	// PECycles is the rated program/erase cycles of a block.
	PECycles int64 `json:"pe_cycles"`
	// OverProvisioning is the device's spare NAND beyond Capacity, as a
	// share of it (0.07 for 7%).
	OverProvisioning float64 `json:"over_provisioning"`
	// WritesPerDay is the host bytes the product writes a day; 0 takes
	// what the endurance test measured.
	WritesPerDay int64 `json:"writes_per_day,omitempty"`
}

// Partition is a partition the tests may use.
type Partition struct {
	Name     string `json:"name"`
	Number   int    `json:"number"`
	Device   string `json:"device"` // e.g. /dev/vda2, /dev/mmcblk0p2
	PartUUID string `json:"partuuid"`
	Size     int64  `json:"size"`
	Root     bool   `json:"root,omitempty"`

	FS         string   `json:"fs,omitempty"`
	Label      string   `json:"label,omitempty"`
	UUID       string   `json:"uuid,omitempty"`
	Mountpoint string   `json:"mountpoint,omitempty"`
	Flags      []string `json:"flags,omitempty"` // VFS flags: noatime, ro, sync, ...
	Data       string   `json:"data,omitempty"`  // filesystem-specific mount data
	ReadOnly   bool     `json:"read_only,omitempty"`
	// Mkfs and Check are argv vectors for the target, with "{device}"
	// standing for the partition's device; empty when the type has none.
	Mkfs  []string `json:"mkfs,omitempty"`
	Check []string `json:"check,omitempty"`
	// NoCheck says why the partition has no checker, when its type has
	// none (nilfs2), for the runner to report.
	NoCheck string `json:"no_check,omitempty"`
	// Cleaner is the garbage collector the runner starts beside a mount
	// of the partition for a test that writes, where the target has it
	// (nilfs_cleanerd), with "{device}" and "{mountpoint}" standing for
	// the mount's; empty when the type needs none.
	Cleaner []string `json:"cleaner,omitempty"`
	// CleanerPeriod are the cleaner's arguments for a protection period,
	// with "{seconds}" standing for it (nilfs_cleanerd -p), which a test
	// that compresses time scales to its clock; empty when it takes none.
	CleanerPeriod []string `json:"cleaner_period,omitempty"`
	// EraseBlock and PageSize are the flash geometry the spec tuned the
	// filesystem for (its geometry block), in bytes; 0 when it gave none.
	EraseBlock int64 `json:"erase_block,omitempty"`
	PageSize   int64 `json:"page_size,omitempty"`
}

// Step is one test case, with what its recipe needs compiled in by the
// host, so that neither side has to know a recipe by its name to prepare
// for it.
type Step struct {
	Recipe string `json:"recipe"`
	// Schema is the version of the recipe's parameters and results the
	// step was compiled for; the runner refuses one it does not implement.
	Schema int    `json:"schema"`
	Test   string `json:"test"`
	Case   string `json:"case"`
	On     string `json:"on,omitempty"` // partition name
	// Iterations is how many results the step gives (at least 1); with
	// Settle, the most it may give.
	Iterations int `json:"iterations"`
	// Settle, when set, ends the step as soon as its results agree well
	// enough: see Settle.
	Settle *Settle `json:"settle,omitempty"`
	// Timeout bounds one iteration on the target; zero takes
	// DefaultStepTimeout.
	Timeout Duration `json:"timeout,omitzero"`
	// Needs is what the step needs of the target and its kernel.
	Needs Needs `json:"needs,omitzero"`
	// HostTimesBoot: the host times the boots the step measures on the
	// console, from the line that matches root_mount_pattern to the one
	// that matches prompt_pattern (both parameters of the step), and adds
	// that time to the step's results.
	HostTimesBoot bool `json:"host_times_boot,omitempty"`
	// AccountIO: the runner counts the partition's I/O around each
	// iteration and adds the write amplification to the results.
	AccountIO bool `json:"account_io,omitempty"`
	// NotApplicable, when set, says why the step cannot apply to its
	// partition (fsck_time on a filesystem without a checker): the
	// runner records it so, without running it.
	NotApplicable string `json:"not_applicable,omitempty"`
	Params        Params `json:"params"`
}

// Needs is what a step needs on the target besides the runner.
type Needs struct {
	// Programs are run by the step: names on the PATH or absolute paths,
	// as the plan's command lines give them (the partition's checker and
	// mkfs, sqlite3). A step whose program is missing is skipped.
	Programs []string `json:"programs,omitempty"`
	// Prefers are programs the step uses when present and replaces with
	// a built-in engine otherwise (fio).
	Prefers []string `json:"prefers,omitempty"`
	// Modules are kernel modules the step loads (dm_flakey), by name.
	Modules []string `json:"modules,omitempty"`
	// Watchdog: the step arms the board's hardware watchdog.
	Watchdog bool `json:"watchdog,omitempty"`
}

// Settle repeats a step until the 95% confidence interval of the mean of
// each of Metrics is within CI (a fraction of the mean: 0.05 for 5%),
// after at least Min successful iterations and at most the step's
// Iterations.
type Settle struct {
	CI      float64  `json:"ci"`
	Min     int      `json:"min"`
	Metrics []string `json:"metrics"`
}

// DefaultStepTimeout bounds an iteration of a step whose plan gives no
// timeout.
const DefaultStepTimeout = 10 * time.Minute

// IterationTimeout is how long one iteration of the step may take.
func (s Step) IterationTimeout() time.Duration {
	if s.Timeout > 0 {
		return time.Duration(s.Timeout)
	}
	return DefaultStepTimeout
}

// ID names the step in logs and results: test/case.
func (s Step) ID() string { return s.Recipe + "." + s.Test + "/" + s.Case }

// Duration is a time.Duration written in JSON as Go writes it ("10m0s").
type Duration time.Duration

// MarshalText writes d as time.Duration.String does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads what MarshalText writes.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Partition returns the partition called name.
func (p *Plan) Partition(name string) (*Partition, bool) {
	for i := range p.Partitions {
		if p.Partitions[i].Name == name {
			return &p.Partitions[i], true
		}
	}
	return nil, false
}

// Root returns the root partition, if the plan has one.
func (p *Plan) Root() (*Partition, bool) {
	for i := range p.Partitions {
		if p.Partitions[i].Root {
			return &p.Partitions[i], true
		}
	}
	return nil, false
}

// Encode writes p as indented JSON with a final newline.
func (p *Plan) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Decode reads and checks a plan.
func Decode(r io.Reader) (*Plan, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("decoding the run plan: %w", err)
	}
	if p.Format != Format {
		return nil, fmt.Errorf("the run plan has format %q; this runner reads %q (rebuild the image with a matching fsbench)", p.Format, Format)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Load reads the plan at path.
func Load(path string) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func (p *Plan) check() error {
	if p.StateDir == "" {
		return errors.New("the run plan names no state directory")
	}
	seen := map[string]bool{}
	for _, s := range p.Steps {
		if seen[s.ID()] {
			return fmt.Errorf("the run plan lists step %s twice", s.ID())
		}
		if s.Iterations < 1 {
			return fmt.Errorf("step %s gives %d results; want at least 1", s.ID(), s.Iterations)
		}
		seen[s.ID()] = true
		if st := s.Settle; st != nil {
			if !(st.CI > 0 && st.CI < 1) || st.Min < 1 || st.Min > s.Iterations || len(st.Metrics) == 0 {
				return fmt.Errorf("step %s settles with ci %v, min %d, max %d and metrics %q; want 0 < ci < 1, 1 <= min <= max and a metric", s.ID(), st.CI, st.Min, s.Iterations, st.Metrics)
			}
		}
		if s.On != "" {
			if _, ok := p.Partition(s.On); !ok {
				return fmt.Errorf("step %s runs on partition %q, which the run plan does not list", s.ID(), s.On)
			}
		}
	}
	return nil
}

// Params are a step's values, as the plan's expanded case holds them: sizes
// and counts as numbers, durations as Go duration strings.
type Params map[string]any

// ParamError is a parameter that is missing or has the wrong type: the
// image's plan and the runner disagree, which is a bug, not a user error.
type ParamError struct {
	Name, Want string
	Got        any
}

func (e *ParamError) Error() string {
	if e.Got == nil {
		return fmt.Sprintf("parameter %s is missing (want %s)", e.Name, e.Want)
	}
	return fmt.Sprintf("parameter %s is %v (%T), want %s", e.Name, e.Got, e.Got, e.Want)
}

// Int returns the whole number called name.
func (p Params) Int(name string) (int64, error) {
	switch v := p[name].(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case float64:
		if v == float64(int64(v)) {
			return int64(v), nil
		}
	}
	return 0, &ParamError{name, "a whole number", p[name]}
}

// Float returns the number called name.
func (p Params) Float(name string) (float64, error) {
	switch v := p[name].(type) {
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return f, nil
		}
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case int:
		return float64(v), nil
	}
	return 0, &ParamError{name, "a number", p[name]}
}

// Bool returns the boolean called name.
func (p Params) Bool(name string) (bool, error) {
	if v, ok := p[name].(bool); ok {
		return v, nil
	}
	return false, &ParamError{name, "a boolean", p[name]}
}

// String returns the string called name.
func (p Params) String(name string) (string, error) {
	if v, ok := p[name].(string); ok {
		return v, nil
	}
	return "", &ParamError{name, "a string", p[name]}
}

// Duration returns the duration called name.
func (p Params) Duration(name string) (time.Duration, error) {
	s, ok := p[name].(string)
	if ok {
		if d, err := time.ParseDuration(s); err == nil {
			return d, nil
		}
	}
	return 0, &ParamError{name, "a duration", p[name]}
}

// Floats returns the list of numbers called name.
func (p Params) Floats(name string) ([]float64, error) {
	l, ok := p[name].([]any)
	if !ok {
		return nil, &ParamError{name, "a list of numbers", p[name]}
	}
	out := make([]float64, len(l))
	for i, x := range l {
		f, err := Params{"x": x}.Float("x")
		if err != nil {
			return nil, &ParamError{name + "[" + strconv.Itoa(i) + "]", "a number", x}
		}
		out[i] = f
	}
	return out, nil
}

// Has reports whether name is set.
func (p Params) Has(name string) bool { _, ok := p[name]; return ok }

// Reader reads several parameters and keeps the first error, so a recipe
// reads its values in a row and checks once. Its methods are not
// inlined: every recipe of the runner calls them many times, and the
// runner's size is budgeted.
type Reader struct {
	P   Params
	Err error
}

func (r *Reader) keep(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

// Int reads a whole number.
//
//go:noinline
func (r *Reader) Int(name string) int64 { v, err := r.P.Int(name); r.keep(err); return v }

// Float reads a number.
//
//go:noinline
func (r *Reader) Float(name string) float64 { v, err := r.P.Float(name); r.keep(err); return v }

// Bool reads a boolean.
//
//go:noinline
func (r *Reader) Bool(name string) bool { v, err := r.P.Bool(name); r.keep(err); return v }

// String reads a string.
//
//go:noinline
func (r *Reader) String(name string) string { v, err := r.P.String(name); r.keep(err); return v }

// Duration reads a duration.
//
//go:noinline
func (r *Reader) Duration(name string) time.Duration {
	v, err := r.P.Duration(name)
	r.keep(err)
	return v
}

// OptDuration reads a duration that may be absent (0 then).
func (r *Reader) OptDuration(name string) time.Duration {
	if !r.P.Has(name) {
		return 0
	}
	return r.Duration(name)
}

// OptInt reads a whole number that may be absent (0 then).
func (r *Reader) OptInt(name string) int64 {
	if !r.P.Has(name) {
		return 0
	}
	return r.Int(name)
}

// Floats reads a list of numbers.
func (r *Reader) Floats(name string) []float64 { v, err := r.P.Floats(name); r.keep(err); return v }
