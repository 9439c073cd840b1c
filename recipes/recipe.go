// Package recipes is the catalogue of fsbench test recipes: for each kind of
// test a spec can name in `test "<recipe>" "<name>" { ... }` it holds the
// attributes the block accepts (typed through package fields), their default
// values taken from the seed documents, the cross-field checks, and the rule
// that turns sweeps into concrete cases.
//
// The spec decoder uses it to check a test block; the plan, the report and the
// runner use a recipe's Name as the stable key of a kind of test. This package
// is pure data and pure functions: it must never execute a test, touch a file
// or a device, read the clock or a random source, or log. On-target execution
// belongs to a separate package (see Recipe), so that the static runner does
// not link the HCL type system that package fields brings in.
package recipes

import (
	"fmt"
	"maps"
	"slices"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/suggest"
)

// Target says what the `on` attribute of a test block must name. The spec
// decoder decodes `on` itself (it refers to the spec's partitions, which this
// package does not know); a recipe only declares which kind of place it needs.
// No recipe has a field named "on".
type Target int

const (
	// OnRoot: the test measures the root filesystem as the board boots it
	// (boot_time). `on` may be omitted; if given it must name the partition
	// marked `root = true`.
	OnRoot Target = iota + 1
	// OnFilesystem: the test works inside a mounted filesystem, in a scratch
	// directory of its own that it removes afterwards (fio, dd_sweep,
	// fsync_latency, sqlite_tps, small_files). `on` names a partition with a
	// filesystem; the root partition is allowed, which is how a single-
	// partition board is measured.
	OnFilesystem
	// OnPartition: the test mounts, unmounts or checks the filesystem itself
	// (mount_time, fsck_time, mkfs_stats), so `on` names a partition with a
	// filesystem that is not the root one. What the test adds (fill data) it
	// removes; the filesystem stays usable.
	OnPartition
	// OnDevice: the test takes over the block device (dm_flakey maps it
	// through device-mapper, power_loss cuts the power while it writes) and
	// may leave the filesystem corrupt; the runner recreates it with the
	// spec's mkfs settings when needed. `on` names a partition with a
	// filesystem that is not the root one and whose contents may be lost.
	OnDevice
)

func (t Target) String() string {
	switch t {
	case OnRoot:
		return "root filesystem"
	case OnFilesystem:
		return "mounted filesystem"
	case OnPartition:
		return "partition (mounted and unmounted by the test)"
	case OnDevice:
		return "block device (taken over by the test)"
	}
	return fmt.Sprintf("Target(%d)", int(t))
}

// Recipe is one kind of test. The catalogue builds a fresh value on each
// Lookup, so a caller may keep or change what it gets without affecting
// anyone else.
//
// Name is the first label of the test block and the key of the recipe in
// the compiled plan and in results. The code that executes a recipe on the
// target is registered under the same Name in package runner, with the
// same Schema, and takes the Case values that Expand produces.
type Recipe struct {
	// Name is the first label of the test block, e.g. "fio".
	Name string
	// Schema is the version of the recipe's parameters and results. The
	// plan writes it into every step and the runner refuses a step whose
	// schema it does not implement; change it with the runner's side.
	Schema int
	// Summary is one line for `fsbench plan` and the documentation.
	Summary string
	// Source is the study, and the pages or section in it, that the
	// method and the defaults come from.
	Source Citation
	// Target says what `on` must name.
	Target Target
	// NeedsEmpty means the partition named by `on` must be built without a
	// contents block (mkfs_stats measures what an empty filesystem uses).
	NeedsEmpty bool
	// ReadOnly means the test only reads its filesystem, so it may run on
	// squashfs or erofs; every other recipe writes.
	ReadOnly bool
	// Fields are the attributes of the test block, in the order `plan`
	// prints them. Sweep fields expand into cases, in this order.
	Fields []fields.Field
	// BoolWords names the false and true values of a Bool sweep field in
	// case names (fio's direct: "buffered", "direct"); without an entry a
	// Bool field gives "no<name>" and "<name>".
	BoolWords map[string][2]string
	// Check reports problems between fields (fio: size must be a multiple
	// of every bs). It receives converted values with defaults applied;
	// fields without a default may be absent. nil when there is none.
	Check func(p Params) []Problem
	// Partitions gives, for a field of kind fields.Partition and one
	// case's values, the bytes the partition it names must hold and what
	// they are for; the plan checks them once partitions are placed, and
	// passes the partition `on` names as placed (its size and
	// filesystem). nil when the recipe names no such partition.
	Partitions func(p Params, field string, on Placed) (need int64, why string)
	// FromPartitions sets, in one case's values, what follows from the
	// partitions its Partition fields name (placed, by field name), and
	// reports the values the spec wrote (written) that contradict them;
	// the plan calls it once partitions are placed, before Partitions.
	// nil when nothing follows.
	FromPartitions func(p Params, written func(field string) bool, parts map[string]Placed) []Problem
	// Estimate says, for one case's values, how much the case will do,
	// where that is not plain from its values (crash_states: how many
	// states its device model gives, and what its budget checks); plan
	// prints it under the case. nil when there is nothing to say.
	Estimate func(p Params) string
	// Reboots means the test reboots the target (boot_time, power_loss):
	// the runner must keep its progress across boots.
	Reboots bool
	// Destructive means the test may corrupt or reformat the filesystem it
	// runs on (power_loss, dm_flakey).
	Destructive bool
	// Count names the field that says how many results each case gives
	// ("iterations"; dd_sweep's "passes"); "" for one result per case.
	Count string
	// HostTimesBoot means the host times the boots of the test on the
	// console, from the line matching its root_mount_pattern to the one
	// matching its prompt_pattern, and adds that time to its results.
	HostTimesBoot bool
	// AccountsIO means the test writes to its partition and the runner
	// counts the partition's I/O around each iteration: the workload's
	// bytes against the device's, the write amplification, flushes,
	// discards, and in QEMU the emulator's own counters beside the
	// guest's (docs/longevity.md).
	AccountsIO bool
	// Needs is what the test needs on the target besides the runner.
	Needs Needs
	// Report says how the run summary and the report read its results.
	Report Report
}

// Placed is what a recipe learns of a placed partition: its size in bytes
// and its filesystem type ("" for none).
type Placed struct {
	Size       int64
	Filesystem string
}

// Params holds converted values by field name, as fields.Field.Convert
// returns them: int64, float64, bool, string, and []any for List and Sweep
// fields.
type Params map[string]any

// Problem is one error found in a test block's values. Field names the
// attribute the caller should point at; Summary and Detail follow the
// wording of HCL diagnostics (a short title, then a sentence that says what
// to change).
type Problem struct {
	Field   string
	Summary string
	Detail  string
}

func (p Problem) String() string { return p.Field + ": " + p.Summary + ": " + p.Detail }

// Field returns the field called name.
func (r *Recipe) Field(name string) (fields.Field, bool) {
	for _, f := range r.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return fields.Field{}, false
}

// SuggestField returns the field name closest to name, for a "did you mean"
// on an unsupported attribute, or "" when none is close.
func (r *Recipe) SuggestField(name string) string {
	names := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		names[i] = f.Name
	}
	return suggest.Closest(name, names)
}

// Defaults returns every field's default value. Fields without a default are
// absent. Lists are copied, so the result may be changed freely.
func (r *Recipe) Defaults() Params {
	p := Params{}
	for _, f := range r.Fields {
		if f.Default != nil {
			p[f.Name] = copyValue(f.Default)
		}
	}
	return p
}

// WithDefaults returns p completed with the default of every field that p
// lacks; p itself is not changed.
func (r *Recipe) WithDefaults(p Params) Params {
	out := r.Defaults()
	for k, v := range p {
		out[k] = copyValue(v)
	}
	return out
}

// Validate reports the problems of p, which should hold converted values
// with defaults applied: names that are not fields, missing required
// fields, a value listed twice in a sweep, then the recipe's own Check.
func (r *Recipe) Validate(p Params) []Problem {
	var probs []Problem
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if _, ok := r.Field(k); !ok {
			detail := fmt.Sprintf("The %s recipe has no argument %q.", r.Name, k)
			if s := r.SuggestField(k); s != "" {
				detail += fmt.Sprintf(" Did you mean %q?", s)
			}
			probs = append(probs, Problem{k, "Unsupported argument", detail})
		}
	}
	for _, f := range r.Fields {
		v, ok := p[f.Name]
		if !ok {
			if f.Required {
				probs = append(probs, Problem{f.Name, "Missing required argument",
					fmt.Sprintf("The %s recipe needs %s: %s", r.Name, f.Name, f.Doc)})
			}
			continue
		}
		if f.Sweep {
			probs = append(probs, r.sweepProblems(f, v)...)
		}
	}
	if r.Check != nil {
		probs = append(probs, r.Check(p)...)
	}
	return probs
}

// sweepProblems rejects an empty sweep and a value listed twice, which would
// give two cases of the same name that measure the same thing.
func (r *Recipe) sweepProblems(f fields.Field, v any) []Problem {
	vals := asList(v)
	if len(vals) == 0 {
		return []Problem{{f.Name, "Empty sweep",
			fmt.Sprintf("%s lists no value, so the test would have no case; give at least one.", f.Name)}}
	}
	var probs []Problem
	seen := map[string]bool{}
	for _, x := range vals {
		w := r.word(f, x)
		if seen[w] {
			probs = append(probs, Problem{f.Name, "Duplicate value in sweep",
				fmt.Sprintf("%s lists %s more than once; each value becomes one case, so remove the repetition.", f.Name, w)})
		}
		seen[w] = true
	}
	return probs
}

func copyValue(v any) any {
	if l, ok := v.([]any); ok {
		return append([]any(nil), l...)
	}
	return v
}
