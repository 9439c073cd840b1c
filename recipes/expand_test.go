package recipes

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

func TestExpandFioSeedMatrix(t *testing.T) {
	r := mustLookup(t, "fio")
	cases := r.Expand(r.Defaults())
	var want []string
	for _, rw := range []string{"randread", "randwrite", "read", "write"} {
		for _, bs := range []string{"4MiB", "4KiB"} {
			for _, d := range []string{"direct", "buffered"} {
				want = append(want, rw+"-"+bs+"-"+d)
			}
		}
	}
	if len(cases) != 16 {
		t.Fatalf("seed fio matrix gives %d cases, want 4 rw x 2 bs x 2 direct = 16", len(cases))
	}
	combos := map[string]bool{}
	for i, c := range cases {
		if c.Name != want[i] {
			t.Errorf("case %d is %q, want %q", i, c.Name, want[i])
		}
		rw, bs, direct := c.Params["rw"].(string), c.Params["bs"].(int64), c.Params["direct"].(bool)
		combos[fmt.Sprint(rw, bs, direct)] = true
		if c.Params["size"] != 500*units.MiB || c.Params["ioengine"] != "libaio" {
			t.Errorf("%s: fixed values not copied: size %v ioengine %v", c.Name, c.Params["size"], c.Params["ioengine"])
		}
	}
	if len(combos) != 16 {
		t.Errorf("cases cover %d distinct (rw, bs, direct), want 16", len(combos))
	}
	labels := map[string]string{
		"randread-4MiB-direct":  "RandLarge",
		"read-4MiB-buffered":    "SeqLarge",
		"randwrite-4KiB-direct": "RandSmall",
		"write-4KiB-buffered":   "SeqSmall",
	}
	for _, c := range cases {
		if want, ok := labels[c.Name]; ok {
			if got := FioLabel(c.Params); got != want {
				t.Errorf("FioLabel(%s) = %q, want %q", c.Name, got, want)
			}
		}
	}
	if got := FioLabel(Params{"rw": "read"}); got != "" {
		t.Errorf("FioLabel without bs = %q", got)
	}
	if got := FioLabel(Params{"rw": "randrw", "bs": units.MiB}); got != "RandLarge" {
		t.Errorf("FioLabel(randrw, 1MiB) = %q (1MiB counts as large)", got)
	}
}

func TestExpandCountsAndNames(t *testing.T) {
	for _, c := range []struct {
		recipe string
		count  int
		first  string
		last   string
	}{
		{"boot_time", 1, SingleCase, SingleCase},
		{"mount_time", 1, SingleCase, SingleCase},
		{"fsck_time", 1, SingleCase, SingleCase},
		{"mkfs_stats", 1, SingleCase, SingleCase},
		{"dd_sweep", 7, "48MiB-4MiB", "48MiB-1KiB"},
		{"fsync_latency", 1, "fsync", "fsync"},
		{"sqlite_tps", 3, "insert-PERSIST-FULL", "delete-PERSIST-FULL"},
		{"small_files", 2, "postmark", "bonnie"},
		{"power_loss", 2, "async-small_files", "sync-small_files"},
		{"dm_flakey", 4, "corrupt_writes-after-large_file", "corrupt_writes-flapping-small_files"},
		{"fio", 16, "randread-4MiB-direct", "write-4KiB-buffered"},
	} {
		r := mustLookup(t, c.recipe)
		cases := r.Expand(r.Defaults())
		if len(cases) != c.count {
			t.Errorf("%s: %d cases, want %d", c.recipe, len(cases), c.count)
			continue
		}
		if cases[0].Name != c.first || cases[len(cases)-1].Name != c.last {
			t.Errorf("%s: cases run %q .. %q, want %q .. %q", c.recipe, cases[0].Name, cases[len(cases)-1].Name, c.first, c.last)
		}
		seen := map[string]bool{}
		for _, k := range cases {
			if seen[k.Name] {
				t.Errorf("%s: case name %q repeated", c.recipe, k.Name)
			}
			seen[k.Name] = true
			for _, f := range r.Fields {
				if _, isList := k.Params[f.Name].([]any); f.Sweep && isList {
					t.Errorf("%s/%s: sweep field %s still a list", c.recipe, k.Name, f.Name)
				}
			}
		}
		if again := r.Expand(r.Defaults()); !reflect.DeepEqual(cases, again) {
			t.Errorf("%s: Expand is not deterministic", c.recipe)
		}
	}
}

func TestExpandDoesNotShareOrMutate(t *testing.T) {
	r := mustLookup(t, "fsync_latency")
	p := r.Defaults()
	p["call"] = []any{"fsync", "fdatasync"}
	before := copyParams(p)
	cases := r.Expand(p)
	if !reflect.DeepEqual(p, before) {
		t.Errorf("Expand changed its input: %v", p)
	}
	if len(cases) != 2 || cases[1].Name != "fdatasync" {
		t.Fatalf("cases = %v", cases)
	}
	cases[0].Params["percentiles"].([]any)[0] = 1.0
	if cases[1].Params["percentiles"].([]any)[0] != 50.0 || p["percentiles"].([]any)[0] != 50.0 {
		t.Error("cases share the list of a List field")
	}
}

func TestExpandNarrowedAndAbsentSweeps(t *testing.T) {
	r := mustLookup(t, "fio")
	p := r.Defaults()
	p["rw"] = []any{"read"}
	cases := r.Expand(p)
	if len(cases) != 4 || cases[0].Name != "read-4MiB-direct" || cases[3].Name != "read-4KiB-buffered" {
		t.Errorf("narrowed rw: %d cases, %q .. %q", len(cases), cases[0].Name, cases[len(cases)-1].Name)
	}
	delete(p, "direct")
	cases = r.Expand(p)
	if len(cases) != 2 || cases[0].Name != "read-4MiB" {
		t.Errorf("absent direct: %d cases, first %q", len(cases), cases[0].Name)
	}
	if cases := r.Expand(Params{}); len(cases) != 1 || cases[0].Name != SingleCase {
		t.Errorf("no sweeps: %v", cases)
	}
	p["rw"] = []any{}
	if cases := r.Expand(p); len(cases) != 0 {
		t.Errorf("empty sweep gives %d cases, want 0", len(cases))
	}
}

func TestExpandKeepsRepeatedNamesUnique(t *testing.T) {
	r := mustLookup(t, "fio")
	p := r.Defaults()
	p["bs"] = []any{4 * units.MiB, 4 * units.MiB}
	p["rw"] = []any{"read"}
	p["direct"] = []any{true}
	var names []string
	for _, c := range r.Expand(p) {
		names = append(names, c.Name)
	}
	if want := []string{"read-4MiB-direct", "read-4MiB-direct~2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
}

func TestCaseWords(t *testing.T) {
	r := &Recipe{
		Name: "synthetic",
		Fields: []fields.Field{
			{Name: "numjobs", Kind: fields.Int, Sweep: true},
			{Name: "flag", Kind: fields.Bool, Sweep: true},
			{Name: "p", Kind: fields.Float, Sweep: true},
			{Name: "wait", Kind: fields.Duration, Sweep: true},
			{Name: "src", Kind: fields.Enum, Sweep: true},
		},
	}
	cases := r.Expand(Params{
		"numjobs": []any{int64(4)},
		"flag":    []any{true, false},
		"p":       []any{99.9},
		"wait":    []any{"1m30s"},
		"src":     []any{"/dev/zero"},
	})
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
	}
	want := []string{"numjobs4-flag-p99.9-1m30s-_dev_zero", "numjobs4-noflag-p99.9-1m30s-_dev_zero"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
}
