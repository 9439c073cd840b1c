package recipes

import (
	"fmt"
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// Fields that several recipes share, defined once so that the same word
// means the same thing in every test block.

// timeoutField is accepted by every recipe. The runner gives up on one run
// (one iteration of an iterating recipe, one case otherwise) after this long
// and records a timeout instead of a result, so a hung device cannot stall a
// whole plan.
func timeoutField(def time.Duration) fields.Field {
	return fields.Field{
		Name:    "timeout",
		Kind:    fields.Duration,
		Min:     fields.Bound(1),
		Default: def.String(),
		Unit:    "s",
		Doc:     "Longest time one run (one iteration, or one case) may take on the target before it is recorded as timed out.",
	}
}

// iterationsField is the number of repeated measurements of each case; the
// report shows their mean and spread.
func iterationsField(def int64, doc string) fields.Field {
	return fields.Field{
		Name:    "iterations",
		Kind:    fields.Int,
		Min:     fields.Bound(1),
		Max:     fields.Bound(100000),
		Default: def,
		Doc:     doc,
	}
}

// fillFields describe data written to a partition before a measurement
// (mount_time, fsck_time). The data is generated from the test's name, never
// from a random source, so two runs fill the same way.
func fillFields(percent int64, percentDoc string) []fields.Field {
	return []fields.Field{
		{
			Name:    "fill_percent",
			Kind:    fields.Int,
			Min:     fields.Bound(0),
			Max:     fields.Bound(95),
			Default: percent,
			Unit:    "%",
			Doc:     percentDoc,
		},
		{
			Name: "fill",
			Kind: fields.Enum,
			Enum: []string{"rootfs", "large_files", "small_files"},
			// Seed 000 p.69: "Load the MMC with a large rootfs".
			Default: "rootfs",
			Doc: "Shape of the fill data: rootfs (a tree shaped like a Buildroot root filesystem: " +
				"mostly files under 64KiB, some of several MiB), large_files (files of 64MiB), " +
				"small_files (files of 4KiB in directories of 1000).",
		},
	}
}

// writerSizeFields size the data written by the reliability tests; both use
// the files of seed 000 p.96 so that their outcomes compare.
func writerSizeFields() []fields.Field {
	return []fields.Field{
		{
			Name: "large_file_size",
			Kind: fields.Size,
			Min:  fields.Bound(float64(units.KiB)),
			// Seed 000 p.96: "Write a 30MB random file".
			Default: 30 * units.MiB,
			Unit:    "bytes",
			Doc:     "Size of the random file the large_file writer writes before it syncs.",
		},
		{
			Name: "small_file_size",
			Kind: fields.Size,
			Min:  fields.Bound(1),
			// Seed 000 p.96: "Write multiple 1MB file".
			Default: units.MiB,
			Unit:    "bytes",
			Doc:     "Size of each file the small_files writer writes.",
		},
		{
			Name: "small_files",
			Kind: fields.Int,
			Min:  fields.Bound(1),
			Max:  fields.Bound(1000000),
			// Seed 000 p.96 says "multiple"; 30 files write the same
			// 30MiB as the large_file writer.
			Default: int64(30),
			Doc:     "Number of files the small_files writer writes.",
		},
	}
}

// sweep builds the default of a Sweep or List field.
func sweep(vals ...any) []any { return vals }

// Accessors for Check functions. Params hold what fields.Field.Convert
// returns; a value of another type reads as absent, which leaves type errors
// to the conversion that already reported them.

func intParam(p Params, name string) (int64, bool) {
	n, ok := p[name].(int64)
	return n, ok
}

func boolParam(p Params, name string) bool {
	b, _ := p[name].(bool)
	return b
}

func stringParam(p Params, name string) (string, bool) {
	s, ok := p[name].(string)
	return s, ok
}

func durationParam(p Params, name string) (time.Duration, bool) {
	s, ok := p[name].(string)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// listOf returns the values of type T of a sweep, a list or a single value.
func listOf[T any](p Params, name string) []T {
	var out []T
	for _, v := range asList(p[name]) {
		if x, ok := v.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

func intList(p Params, name string) []int64     { return listOf[int64](p, name) }
func stringList(p Params, name string) []string { return listOf[string](p, name) }
func floatList(p Params, name string) []float64 { return listOf[float64](p, name) }

// wholeSeconds reports a duration that an interface counting in whole
// seconds (the watchdog ioctl, dm-flakey's table) cannot take.
func wholeSeconds(p Params, name, why string) []Problem {
	d, ok := durationParam(p, name)
	if !ok || d%time.Second == 0 {
		return nil
	}
	whole := max(d.Round(time.Second), time.Second)
	return []Problem{{name, "Duration not in whole seconds",
		fmt.Sprintf("%s is %s, but %s counts in whole seconds; use for example %q.", name, d, why, whole.String())}}
}

// beforeTimeout reports a delay that the run's timeout would cut short.
func beforeTimeout(p Params, name, what string) []Problem {
	d, ok := durationParam(p, name)
	t, okT := durationParam(p, "timeout")
	if !ok || !okT || d < t {
		return nil
	}
	return []Problem{{name, "Delay not shorter than the timeout",
		fmt.Sprintf("%s is %s but timeout is %s, so the run would time out before %s; lower %s or raise timeout.", name, d, t, what, name)}}
}

// concat joins groups of fields in order.
func concat(groups ...[]fields.Field) []fields.Field {
	var out []fields.Field
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// timeBars are the real, user and system time a timed recipe stores as
// <what>_time, <what>_user and <what>_sys.
func timeBars(what string) []Bar {
	return []Bar{{Metric: what + "_time", Label: "real"}, {Metric: what + "_user", Label: "user"}, {Metric: what + "_sys", Label: "sys"}}
}

// dataClasses are the data outcomes of the reliability recipes, from the
// best to the worst; both use them, so that their charts compare.
var dataClasses = []string{"Intact", "LostUnsynced", "LostSynced", "Corrupt"}
