package plan

import (
	"encoding/json"
	"strings"
	"testing"
)

// The board's endurance block and a filesystem's geometry reach the plan
// and its JSON; the rating prints as plan shows it.
func TestEnduranceAndGeometryInPlan(t *testing.T) {
	p := resolve(t, `
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity  = "64MiB" # the image's size: it fits
    pe_cycles = 3000
  }
}
image "d" {
  size = "64MiB"
  partition "root" {
    size = "32MiB"
    root = true
    filesystem {
      type = "ext4"
      geometry {
        erase_block = "4MiB"
        page_size   = "16KiB"
      }
    }
  }
  partition "plain" {
    size = "16MiB"
    filesystem { type = "ext4" }
  }
}
`)
	v := p.Variants[0]
	e := v.Board.Endurance
	if e == nil || *e != (Endurance{Capacity: 64 << 20, PECycles: 3000, OverProvisioning: 0.07}) {
		t.Fatalf("endurance %+v", e)
	}
	if got, want := e.String(), "64MiB user capacity, 3000 P/E cycles, 7% over-provisioning, applications' writes a day: measured"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	e2 := Endurance{Capacity: 8 << 30, PECycles: 30000, OverProvisioning: 0.125, WritesPerDay: 2 << 30}
	if got, want := e2.String(), "8GiB user capacity, 30000 P/E cycles, 12.5% over-provisioning, applications' writes a day: 2GiB"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	root, plain := v.Images[0].Partitions[0].Filesystem, v.Images[0].Partitions[1].Filesystem
	if root.EraseBlock != 4<<20 || root.PageSize != 16<<10 || plain.EraseBlock != 0 || plain.PageSize != 0 {
		t.Errorf("geometry %d/%d and %d/%d", root.EraseBlock, root.PageSize, plain.EraseBlock, plain.PageSize)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, want := range []string{
		`"endurance":{"capacity":67108864,"pe_cycles":3000,"over_provisioning":0.07}`,
		`"erase_block":4194304,"page_size":16384`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("plan JSON lacks %s", want)
		}
	}
	// Without geometry, the partition's JSON has neither field.
	if strings.Count(js, `"erase_block"`) != 1 {
		t.Errorf("erase_block in %d filesystems, want 1", strings.Count(js, `"erase_block"`))
	}
}
