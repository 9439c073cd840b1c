package plandiff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/fsbench/fsbench/internal/golden"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/plan/plandiff"
	"github.com/fsbench/fsbench/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func load(t *testing.T, name string) *plan.Plan {
	t.Helper()
	_, p, diags := plan.LoadSealed(filepath.Join("testdata", name+".fsb.hcl"), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// Each kind of change against the same base, in text and JSON, with what
// the change changes.
func TestDiffGolden(t *testing.T) {
	base := load(t, "base")
	for _, c := range []struct {
		name                      string
		image, tests, breaking    bool
		changedVariants, statuses int
	}{
		{name: "same"},
		{name: "moved", image: true, breaking: true},
		{name: "tuning", image: true},
		{name: "tests", tests: true},
		{name: "endurance", tests: true},
		{name: "variants", image: true, breaking: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := plandiff.Compare(base, load(t, c.name), "base.fsb.hcl", c.name+".fsb.hcl")
			if d.ImageChanged != c.image || d.TestsChanged != c.tests || d.Breaking != c.breaking {
				t.Errorf("image %v tests %v breaking %v; want %v %v %v", d.ImageChanged, d.TestsChanged, d.Breaking, c.image, c.tests, c.breaking)
			}
			var text, js bytes.Buffer
			if err := d.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := d.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			var back plandiff.Diff
			if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Format != plandiff.Format {
				t.Errorf("JSON does not read back: %v", err)
			}
			golden.Check(t, filepath.Join("testdata", c.name+".diff.txt"), text.Bytes(), *update)
			golden.Check(t, filepath.Join("testdata", c.name+".diff.json"), js.Bytes(), *update)
		})
	}
}

// The kinds the issue names are there: a moved partition is breaking, a
// test-only change leaves the image alone.
func TestDiffKinds(t *testing.T) {
	base := load(t, "base")
	moved := plandiff.Compare(base, load(t, "moved"), "a", "b")
	found := false
	for _, v := range moved.Variants {
		for _, c := range v.Changes {
			if c.Where == "image disk, partition bench" && c.Kind == "moved" && c.Breaking != "" {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the bench partition moved, and the diff does not say so: %+v", moved.Variants)
	}
	tests := plandiff.Compare(base, load(t, "tests"), "a", "b")
	for _, v := range tests.Variants {
		for _, c := range v.Changes {
			if c.Affects != plandiff.Tests {
				t.Errorf("a test-only change affects %s: %+v", c.Affects, c)
			}
		}
	}
}
