package payload

import (
	"testing"

	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/wire/runplan"
)

// The board's flash rating and a partition's flash geometry reach the run
// plan; without them the run plan has neither.
func TestCompileEnduranceAndGeometry(t *testing.T) {
	p, v := quickstart(t)
	v.Board.Endurance = nil // the quickstart rates its flash
	rp, err := Compile(p, v)
	if err != nil {
		t.Fatal(err)
	}
	if bench, _ := rp.Partition("bench"); rp.Board.Endurance != nil || bench.EraseBlock != 0 || bench.PageSize != 0 {
		t.Errorf("endurance %+v, geometry %d/%d without them in the spec", rp.Board.Endurance, bench.EraseBlock, bench.PageSize)
	}
	v.Board.Endurance = &plan.Endurance{Capacity: 8 << 30, PECycles: 3000, OverProvisioning: 0.07, WritesPerDay: 2 << 30}
	fs := v.Images[0].Partitions[1].Filesystem
	fs.EraseBlock, fs.PageSize = 4<<20, 16<<10
	rp, err = Compile(p, v)
	if err != nil {
		t.Fatal(err)
	}
	want := runplan.Endurance{Capacity: 8 << 30, PECycles: 3000, OverProvisioning: 0.07, WritesPerDay: 2 << 30}
	if e := rp.Board.Endurance; e == nil || *e != want {
		t.Errorf("endurance %+v, want %+v", e, want)
	}
	if bench, _ := rp.Partition("bench"); bench.EraseBlock != 4<<20 || bench.PageSize != 16<<10 {
		t.Errorf("bench geometry %d/%d, want 4MiB/16KiB", bench.EraseBlock, bench.PageSize)
	}
}
