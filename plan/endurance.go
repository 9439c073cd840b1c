package plan

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/spec"
)

// endurance carries the board's flash rating into the plan.
func endurance(se *spec.Endurance) *Endurance {
	if se == nil {
		return nil
	}
	return &Endurance{Capacity: se.Capacity, PECycles: se.PECycles, OverProvisioning: se.OverProvisioning, WritesPerDay: se.WritesPerDay}
}

// checkEndurance refuses a flash capacity smaller than the image written
// to the board's storage (the boot image): the rating would describe
// another device. Only the plan knows an image's size without a size
// attribute, once its partitions are placed.
func (r *resolver) checkEndurance(sv *spec.Variant, v *Variant) {
	se := sv.Board.Endurance
	if se == nil || se.Capacity <= 0 || len(v.Images) == 0 {
		return
	}
	img := v.Images[v.BootImage()]
	if img.Size <= 0 || se.Capacity >= img.Size {
		return
	}
	r.errorf(se.Of("capacity"), "Flash capacity smaller than the image",
		"Image %q (%s) is written to board %q's storage /dev/%s, and capacity says the device holds %s: give the device's user capacity, or make the image smaller.",
		img.Name, units.FormatSize(img.Size), sv.Board.Name, sv.Board.Storage, units.FormatSize(se.Capacity))
}

// String is how plan shows the rating: "8GiB user capacity, 3000 P/E
// cycles, 7% over-provisioning, applications' writes a day: measured".
func (e *Endurance) String() string {
	writes := "measured"
	if e.WritesPerDay > 0 {
		writes = units.FormatSize(e.WritesPerDay)
	}
	// Rounded to a millionth, so that 0.07 shows as 7%, not
	// 7.000000000000001%.
	pct := strconv.FormatFloat(math.Round(e.OverProvisioning*1e6)/1e4, 'f', -1, 64)
	return fmt.Sprintf("%s user capacity, %d P/E cycles, %s%% over-provisioning, applications' writes a day: %s",
		units.FormatSize(e.Capacity), e.PECycles, pct, writes)
}
