package recipes

import (
	"time"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// flash_info asks the storage what it says about itself: an eMMC's
// EXT_CSD register (through the MMC ioctl, or debugfs), an SD card's CSD
// and SD Status registers, what the kernel derives from them in sysfs, and
// its request queue; then, flashbench style, it times reads that straddle
// power-of-two boundaries to estimate the erase block where the device
// does not say. A spec runs it before and after a campaign: the health
// registers (life time estimates, pre-EOL) show what the campaign cost.
// It only reads.

func newFlashInfo() *Recipe {
	return &Recipe{
		Name:    "flash_info",
		Schema:  1,
		Summary: "The storage's own geometry and health (eMMC EXT_CSD, SD CSD and SD Status, sysfs) and a flashbench-style erase block probe.",
		Source:  Citation{ELC2015, "p.9-12 \"Inside MMC\", \"JEDEC specifications\"; p.61 tuning the filesystem to the erase block"},
		// Any partition of the storage names the device; the root too.
		Target: OnFilesystem,
		// The probe reads the whole device's first MiBs; it writes
		// nothing.
		ReadOnly: true,
		Count:    "iterations",
		Report: Report{
			More: []string{"stated_erase_unit", "probe_erase_block", "spec_erase_block", "capacity"},
		},
		Fields: []fields.Field{
			{
				Name:    "probe",
				Kind:    fields.Bool,
				Default: true,
				Doc:     "Time reads across power-of-two boundaries of the device to estimate its erase block (reads only).",
			},
			{
				Name: "probe_max",
				Kind: fields.Size, PowerOfTwo: true,
				Min: fields.Bound(float64(units.MiB)), Max: fields.Bound(float64(units.GiB)),
				// flashbench's largest alignment.
				Default: 64 * units.MiB,
				Unit:    "bytes",
				Doc:     "Largest boundary the probe tries; the device must hold several times it.",
			},
			iterationsField(1, "Readings; each reads the registers again."),
			timeoutField(10 * time.Minute),
		},
	}
}
