package recipes

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

var wantNames = []string{
	"boot_time", "crash_states", "dd_sweep", "dm_flakey", "endurance", "fio", "flash_info", "fsck_time", "fsync_latency",
	"mkfs_stats", "mount_time", "power_loss", "small_files", "sqlite_tps", "update",
}

func TestNamesSortedAndComplete(t *testing.T) {
	got := Names()
	if !sort.StringsAreSorted(got) {
		t.Errorf("Names() not sorted: %v", got)
	}
	if !reflect.DeepEqual(got, wantNames) {
		t.Errorf("Names() = %v, want %v", got, wantNames)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(\"nope\") found a recipe")
	}
}

func TestLookupReturnsIndependentCopies(t *testing.T) {
	a := mustLookup(t, "fio")
	a.Fields[0].Name = "changed"
	a.Name = "changed"
	b := mustLookup(t, "fio")
	if b.Name != "fio" || b.Fields[0].Name != "rw" {
		t.Errorf("a change to one Lookup result reached the next: %q, %q", b.Name, b.Fields[0].Name)
	}
}

func TestRecipeMetadata(t *testing.T) {
	for _, name := range Names() {
		r := mustLookup(t, name)
		if r.Name != name {
			t.Errorf("%s: Name is %q", name, r.Name)
		}
		if r.Summary == "" || r.Source.Study == nil || r.Source.Where == "" || strings.Contains(r.Summary, "\n") {
			t.Errorf("%s: Summary %q / Source %q must be one non-empty line", name, r.Summary, r.Source)
		}
		if r.Target < OnRoot || r.Target > OnDevice {
			t.Errorf("%s: Target %v is not set", name, r.Target)
		}
		seen := map[string]bool{}
		for _, f := range r.Fields {
			if seen[f.Name] {
				t.Errorf("%s: field %s defined twice", name, f.Name)
			}
			seen[f.Name] = true
			if f.Name == "on" {
				t.Errorf("%s: field \"on\" belongs to the spec decoder", name)
			}
			if f.Doc == "" {
				t.Errorf("%s.%s: no Doc", name, f.Name)
			}
			if f.Sweep || f.List {
				if _, ok := f.Default.([]any); f.Default != nil && !ok {
					t.Errorf("%s.%s: default of a sweep or list must be []any, is %T", name, f.Name, f.Default)
				}
			}
		}
		if to, ok := r.Field("timeout"); !ok || to.Kind != fields.Duration || to.Default == nil {
			t.Errorf("%s: missing the common timeout field with a default", name)
		}
		for field := range r.BoolWords {
			if f, ok := r.Field(field); !ok || f.Kind != fields.Bool || !f.Sweep {
				t.Errorf("%s: BoolWords names %q, not a Bool sweep field", name, field)
			}
		}
	}
}

// The flags decide how the runner treats a test; pin them.
func TestRecipeFlags(t *testing.T) {
	want := map[string]struct {
		target              Target
		reboots, destroys   bool
		needsEmptyPartition bool
		readOnly            bool
	}{
		"fio":           {OnFilesystem, false, false, false, false},
		"boot_time":     {OnRoot, true, false, false, true},
		"mount_time":    {OnPartition, false, false, false, false},
		"fsck_time":     {OnPartition, false, false, false, false},
		"mkfs_stats":    {OnPartition, false, false, true, true},
		"dd_sweep":      {OnFilesystem, false, false, false, false},
		"fsync_latency": {OnFilesystem, false, false, false, false},
		"sqlite_tps":    {OnFilesystem, false, false, false, false},
		"small_files":   {OnFilesystem, false, false, false, false},
		"power_loss":    {OnDevice, true, true, false, false},
		"dm_flakey":     {OnDevice, false, true, false, false},
		"crash_states":  {OnDevice, true, true, false, false},
		"update":        {OnDevice, true, true, false, false},
		"endurance":     {OnFilesystem, false, false, false, false},
		"flash_info":    {OnFilesystem, false, false, false, true},
	}
	for name, w := range want {
		r := mustLookup(t, name)
		if r.Target != w.target || r.Reboots != w.reboots || r.Destructive != w.destroys || r.NeedsEmpty != w.needsEmptyPartition || r.ReadOnly != w.readOnly {
			t.Errorf("%s: Target %v Reboots %v Destructive %v NeedsEmpty %v ReadOnly %v; want %v %v %v %v %v", name,
				r.Target, r.Reboots, r.Destructive, r.NeedsEmpty, r.ReadOnly, w.target, w.reboots, w.destroys, w.needsEmptyPartition, w.readOnly)
		}
	}
	if len(want) != len(Names()) {
		t.Errorf("flags pinned for %d recipes, catalogue has %d", len(want), len(Names()))
	}
}

// Every default must be a value its own field accepts and returns unchanged:
// what plan prints for an absent attribute is what the user could write.
func TestDefaultsRoundTripThroughConvert(t *testing.T) {
	for _, name := range Names() {
		r := mustLookup(t, name)
		for _, f := range r.Fields {
			if f.Default == nil {
				continue
			}
			got, err := f.Convert(ctyOf(t, f.Default))
			if err != nil {
				t.Errorf("%s.%s: default %v rejected: %v", name, f.Name, f.Default, err)
				continue
			}
			if !reflect.DeepEqual(got, f.Default) {
				t.Errorf("%s.%s: default %#v converts to %#v", name, f.Name, f.Default, got)
			}
			if f.Kind == fields.Size && !f.Sweep && !f.List {
				// The way a user writes it: "500MiB".
				text := ctyOf(t, units.FormatSize(f.Default.(int64)))
				if back, err := f.Convert(text); err != nil || back != f.Default {
					t.Errorf("%s.%s: %q converts to %v, %v", name, f.Name, text.AsString(), back, err)
				}
			}
		}
		p := r.Defaults()
		for _, f := range r.Fields {
			if f.Required && f.Kind == fields.Partition {
				p[f.Name] = f.Name // what the spec decoder gives for partition.<field>
			}
		}
		if probs := r.Validate(p); len(probs) != 0 {
			t.Errorf("%s: defaults have problems: %v", name, probs)
		}
	}
}

func TestDefaultsAreCopies(t *testing.T) {
	r := mustLookup(t, "fio")
	p := r.Defaults()
	p["rw"].([]any)[0] = "write"
	if got := r.Defaults()["rw"].([]any)[0]; got != "randread" {
		t.Errorf("changing Defaults() changed the field default: rw[0] = %v", got)
	}
	with := r.WithDefaults(Params{"size": int64(units.GiB)})
	if with["size"] != int64(units.GiB) || with["nrfiles"] != int64(50) {
		t.Errorf("WithDefaults: size %v nrfiles %v", with["size"], with["nrfiles"])
	}
}

// The seed values the recipes must reproduce; a change here changes what a
// spec without attributes measures.
func TestSeedDefaults(t *testing.T) {
	mib, kib := units.MiB, units.KiB
	want := map[string]Params{
		"fio": {
			"rw":     []any{"randread", "randwrite", "read", "write"},
			"bs":     []any{4 * mib, 4 * kib},
			"direct": []any{true, false}, "size": 500 * mib, "nrfiles": int64(50),
			"numjobs": int64(1), "ioengine": "libaio",
		},
		"boot_time":     {"root_mount_pattern": "Mounted root", "rootfstype": true},
		"mount_time":    {"fill_percent": int64(60), "specify_type": true},
		"fsck_time":     {"force": true},
		"mkfs_stats":    {"iterations": int64(1)},
		"dd_sweep":      {"total": []any{48 * mib}, "bs": []any{4 * mib, 2 * mib, mib, 512 * kib, 4 * kib, 2 * kib, kib}, "passes": int64(2), "drop_caches": true, "source": "/dev/zero", "read": false},
		"fsync_latency": {"call": []any{"fsync"}, "percentiles": []any{50.0, 90.0, 99.0, 99.9}},
		"sqlite_tps":    {"operation": []any{"insert", "update", "delete"}, "journal_mode": []any{"PERSIST"}, "synchronous": []any{"FULL"}, "rows_per_transaction": int64(1)},
		"small_files":   {"mode": []any{"postmark", "bonnie"}, "files": int64(1000), "transactions": int64(10000), "min_size": int64(500), "max_size": int64(10000), "bonnie_size": 20 * mib, "bonnie_ram": 4 * mib},
		"power_loss":    {"iterations": int64(226), "mount": []any{"async", "sync"}, "trigger": "watchdog", "data_check": true},
		"dm_flakey":     {"iterations": int64(15), "schedule": []any{"after", "flapping"}, "writer": []any{"large_file", "small_files"}, "after": "10s", "flap_up": "1s", "flap_down": "1s", "corrupt_byte": int64(1), "corrupt_value": int64(0), "large_file_size": 30 * mib, "small_file_size": mib},
	}
	for name, vals := range want {
		d := mustLookup(t, name).Defaults()
		for k, v := range vals {
			if !reflect.DeepEqual(d[k], v) {
				t.Errorf("%s.%s default = %#v, want %#v", name, k, d[k], v)
			}
		}
	}
}

func TestSuggest(t *testing.T) {
	for in, want := range map[string]string{
		"fio2":       "fio",
		"boottime":   "boot_time",
		"Boot-Time":  "boot_time",
		"fsync":      "fsync_latency",
		"sqlite":     "sqlite_tps",
		"dmflakey":   "dm_flakey",
		"power_los":  "power_loss",
		"mount_tme":  "mount_time",
		"sqlit_tp":   "sqlite_tps",
		"xyzzy":      "",
		"":           "",
		"filesystem": "",
	} {
		if got := Suggest(in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mustLookup(t, "fio").SuggestField("nrfile"); got != "nrfiles" {
		t.Errorf("SuggestField(nrfile) = %q", got)
	}
}

func TestTargetString(t *testing.T) {
	names := map[string]bool{}
	for _, tg := range []Target{OnRoot, OnFilesystem, OnPartition, OnDevice} {
		s := tg.String()
		if strings.HasPrefix(s, "Target(") || names[s] {
			t.Errorf("Target %d has no distinct name: %q", int(tg), s)
		}
		names[s] = true
	}
	if got := Target(0).String(); got != "Target(0)" {
		t.Errorf("zero Target = %q", got)
	}
}

// The tests whose writes the runner accounts: every one that writes a
// workload into a filesystem it keeps, none that reformats or crashes it.
func TestAccountsIO(t *testing.T) {
	want := []string{"dd_sweep", "endurance", "fio", "fsync_latency", "mount_time", "small_files", "sqlite_tps"}
	var got []string
	for _, name := range Names() {
		if mustLookup(t, name).AccountsIO {
			got = append(got, name)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AccountsIO on %v, want %v", got, want)
	}
}
