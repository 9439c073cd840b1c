package recipes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// Each row starts from the recipe's defaults, changes some values, and lists
// exactly the problems Validate must report (field and summary), so a
// missing problem and a spurious one both fail. Rows without problems prove
// that a check does not fire where it must not.
func TestValidateProblems(t *testing.T) {
	mib, kib := units.MiB, units.KiB
	type want struct{ field, summary string }
	for _, c := range []struct {
		name   string
		recipe string
		set    Params
		unset  []string
		want   []want
	}{
		{name: "fio size not a multiple of bs", recipe: "fio",
			set:  Params{"size": 500*mib + 4*kib},
			want: []want{{"size", "Size not a multiple of the block size"}}},
		{name: "fio more files than blocks", recipe: "fio",
			set:  Params{"nrfiles": int64(200)},
			want: []want{{"nrfiles", "Files smaller than one block"}}},
		{name: "fio one block per file is enough", recipe: "fio",
			set: Params{"nrfiles": int64(125)}},
		{name: "fio time_based without runtime", recipe: "fio",
			set:  Params{"time_based": true},
			want: []want{{"time_based", "time_based without runtime"}}},
		{name: "fio time_based with runtime", recipe: "fio",
			set: Params{"time_based": true, "runtime": "1m0s"}},
		{name: "fio iodepth with a synchronous engine", recipe: "fio",
			set:  Params{"iodepth": int64(32), "ioengine": "psync"},
			want: []want{{"iodepth", "Queue depth needs an asynchronous engine"}}},
		{name: "fio iodepth with libaio", recipe: "fio",
			set: Params{"iodepth": int64(32)}},
		{name: "boot_time empty pattern", recipe: "boot_time",
			set:  Params{"prompt_pattern": ""},
			want: []want{{"prompt_pattern", "Empty pattern"}}},
		{name: "boot_time invalid regexp", recipe: "boot_time",
			set:  Params{"root_mount_pattern": "VFS: (Mounted"},
			want: []want{{"root_mount_pattern", "Invalid regular expression"}}},
		{name: "boot_time regexp", recipe: "boot_time",
			set: Params{"prompt_pattern": `^\S+ login:`}},
		{name: "dd total not a multiple of bs", recipe: "dd_sweep",
			set:  Params{"total": []any{10 * mib}, "bs": []any{3 * kib, 4 * kib}},
			want: []want{{"total", "Total not a multiple of the block size"}}},
		{name: "dd the seed's second script", recipe: "dd_sweep",
			set: Params{"total": []any{10 * mib, 50 * mib, 100 * mib}, "bs": []any{mib}, "passes": int64(1), "read": true}},
		{name: "fsync percentiles not increasing", recipe: "fsync_latency",
			set:  Params{"percentiles": []any{90.0, 50.0}},
			want: []want{{"percentiles", "Percentiles not increasing"}}},
		{name: "fsync too few samples for p99.9", recipe: "fsync_latency",
			set:  Params{"count": int64(999)},
			want: []want{{"count", "Too few samples for the highest percentile"}}},
		{name: "fsync enough samples for p99", recipe: "fsync_latency",
			set: Params{"count": int64(100), "percentiles": []any{50.0, 99.0}}},
		{name: "small_files size range reversed", recipe: "small_files",
			set:  Params{"min_size": int64(20000)},
			want: []want{{"max_size", "File size range reversed"}}},
		{name: "small_files bonnie file under twice the RAM", recipe: "small_files",
			set:  Params{"bonnie_size": 6 * mib},
			want: []want{{"bonnie_size", "bonnie++ file smaller than twice the RAM"}}},
		{name: "small_files bonnie fields unused by postmark", recipe: "small_files",
			set: Params{"bonnie_size": 6 * mib, "mode": []any{"postmark"}}},
		{name: "power_loss watchdog needs whole seconds", recipe: "power_loss",
			set:  Params{"cut_after": "1.5s"},
			want: []want{{"cut_after", "Duration not in whole seconds"}}},
		{name: "power_loss host_kill takes fractions", recipe: "power_loss",
			set: Params{"cut_after": "1.5s", "trigger": "host_kill"}},
		{name: "power_loss cut after the timeout", recipe: "power_loss",
			set:  Params{"cut_after": "10m0s"},
			want: []want{{"cut_after", "Delay not shorter than the timeout"}}},
		{name: "power_loss cut exactly at the timeout", recipe: "power_loss",
			set:  Params{"cut_after": "5m0s"},
			want: []want{{"cut_after", "Delay not shorter than the timeout"}}},
		{name: "power_loss cut just before the timeout", recipe: "power_loss",
			set: Params{"cut_after": "4m59s"}},
		{name: "dm_flakey intervals in whole seconds", recipe: "dm_flakey",
			set:  Params{"after": "2.5s", "flap_up": "500ms"},
			want: []want{{"after", "Duration not in whole seconds"}, {"flap_up", "Duration not in whole seconds"}}},
		{name: "dm_flakey flapping never faulty", recipe: "dm_flakey",
			set:  Params{"flap_down": "0s"},
			want: []want{{"flap_down", "Flapping device never faulty"}}},
		{name: "dm_flakey flap_down unused without flapping", recipe: "dm_flakey",
			set: Params{"flap_down": "0s", "schedule": []any{"after"}}},
		{name: "dm_flakey fault after the timeout", recipe: "dm_flakey",
			set:  Params{"after": "20m0s"},
			want: []want{{"after", "Delay not shorter than the timeout"}}},
		{name: "unknown argument", recipe: "fio",
			set:  Params{"nrfile": int64(5)},
			want: []want{{"nrfile", "Unsupported argument"}}},
		{name: "duplicate sweep value", recipe: "fio",
			set:  Params{"rw": []any{"read", "write", "read"}},
			want: []want{{"rw", "Duplicate value in sweep"}}},
		{name: "empty sweep", recipe: "power_loss",
			set:  Params{"mount": []any{}},
			want: []want{{"mount", "Empty sweep"}}},
		{name: "optional field absent", recipe: "fio",
			unset: []string{"size", "nrfiles", "iodepth"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustLookup(t, c.recipe)
			p := r.Defaults()
			for k, v := range c.set {
				p[k] = v
			}
			for _, k := range c.unset {
				delete(p, k)
			}
			var got []want
			for _, pr := range r.Validate(p) {
				got = append(got, want{pr.Field, pr.Summary})
				if pr.Detail == "" || !strings.HasSuffix(pr.Detail, ".") && !strings.HasSuffix(pr.Detail, "?") {
					t.Errorf("%s: Detail %q should be a full sentence", pr.Summary, pr.Detail)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("problems = %v, want %v", got, c.want)
			}
		})
	}
}

func TestValidateDetails(t *testing.T) {
	r := mustLookup(t, "fio")
	p := r.Defaults()
	p["nrfile"] = int64(5)
	probs := r.Validate(p)
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, `Did you mean "nrfiles"?`) {
		t.Errorf("unknown argument detail: %v", probs)
	}
	p = r.Defaults()
	p["size"] = 500*units.MiB + 4*units.KiB
	probs = r.Validate(p)
	if len(probs) != 1 || !strings.Contains(probs[0].Detail, "512004KiB") || !strings.Contains(probs[0].Detail, "4MiB") {
		t.Errorf("size detail should name both sizes: %v", probs)
	}
	pl := mustLookup(t, "power_loss")
	p = pl.Defaults()
	p["cut_after"] = "400ms"
	if probs := pl.Validate(p); len(probs) != 1 || !strings.Contains(probs[0].Detail, `"1s"`) {
		t.Errorf("a sub-second cut should suggest 1s: %v", probs)
	}
}

func TestValidateRequired(t *testing.T) {
	r := &Recipe{Name: "synthetic", Fields: []fields.Field{
		{Name: "device", Kind: fields.String, Required: true, Doc: "The device."},
	}}
	probs := r.Validate(Params{})
	if len(probs) != 1 || probs[0].Field != "device" || probs[0].Summary != "Missing required argument" {
		t.Errorf("problems = %v", probs)
	}
	if probs := r.Validate(Params{"device": "x"}); len(probs) != 0 {
		t.Errorf("problems with the field set: %v", probs)
	}
}

func TestSamplesFor(t *testing.T) {
	for p, want := range map[float64]int64{50: 2, 90: 10, 99: 100, 99.9: 1000, 99.99: 10000, 100: 1, 0: 1} {
		if got := samplesFor(p); got != want {
			t.Errorf("samplesFor(%g) = %d, want %d", p, got, want)
		}
	}
}

func TestDMFlakeyFeatures(t *testing.T) {
	r := mustLookup(t, "dm_flakey")
	p := r.Defaults()
	p["fault"] = []any{"corrupt_writes", "corrupt_reads", "drop_writes", "error_writes", "error_all"}
	p["schedule"] = []any{"after"}
	p["writer"] = []any{"large_file"}
	want := map[string][]string{
		"corrupt_writes-after-large_file": {"corrupt_bio_byte", "1", "w", "0", "0"},
		"corrupt_reads-after-large_file":  {"corrupt_bio_byte", "1", "r", "0", "0"},
		"drop_writes-after-large_file":    {"drop_writes"},
		"error_writes-after-large_file":   {"error_writes"},
		"error_all-after-large_file":      nil,
	}
	cases := r.Expand(p)
	if len(cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(cases), len(want))
	}
	for _, c := range cases {
		if got := DMFlakeyFeatures(c.Params); !reflect.DeepEqual(got, want[c.Name]) {
			t.Errorf("%s: features %q, want %q", c.Name, got, want[c.Name])
		}
	}
}
