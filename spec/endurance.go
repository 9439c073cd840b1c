package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/fsbench/fsbench/internal/fields"
)

// Endurance is a board's `endurance` block: what its flash is rated for,
// from which the host's flash-wear model projects a lifetime.
type Endurance struct {
	// Capacity is the device's user capacity in bytes, a whole number of
	// 512-byte sectors.
	Capacity int64
	// PECycles is the program/erase cycles the datasheet rates a block
	// for.
	PECycles int64
	// OverProvisioning is the spare NAND beyond Capacity, as a share of
	// it (0.07 for 7%).
	OverProvisioning float64
	// WritesPerDay is the bytes the product's host writes a day; 0 takes
	// what the endurance test measures.
	WritesPerDay int64
	Ranges
}

// DefaultOverProvisioning is the spare of a device whose NAND counts
// binary gigabytes and whose capacity decimal ones (2^30/10^9 ≈ 1.07),
// the usual eMMC and SD card when the datasheet says nothing.
const DefaultOverProvisioning = 0.07

// MaxPECycles bounds pe_cycles: SLC NAND is rated for about 100000
// cycles; a hundred times that is a typing error, not a part.
const MaxPECycles = 10_000_000

var enduranceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "capacity", Required: true}, {Name: "pe_cycles", Required: true},
		{Name: "over_provisioning"}, {Name: "writes_per_day"},
	},
}

// The fields convert the values; endurance checks their ranges itself, to
// say what to write instead.
var (
	capacityField = fields.Field{Name: "capacity", Kind: fields.Size,
		Doc: "the device's user capacity, such as \"8GiB\""}
	peCyclesField = fields.Field{Name: "pe_cycles", Kind: fields.Int,
		Doc: fmt.Sprintf("the program/erase cycles the datasheet rates a block for, a whole number from 1 to %d", MaxPECycles)}
	writesPerDayField = fields.Field{Name: "writes_per_day", Kind: fields.Size,
		Doc: "the bytes the product's host writes a day, such as \"2GiB\""}
)

func (d *decoder) endurance(b *hcl.Block, bd *Board) *Endurance {
	c := d.content(b.Body, enduranceSchema)
	e := &Endurance{OverProvisioning: DefaultOverProvisioning, Ranges: newRanges(b.DefRange, c.Attributes)}
	if x, ok := d.field(c.Attributes, capacityField, "Invalid flash capacity"); ok {
		e.Capacity = x.(int64)
		d.checkCapacity(e, bd)
	}
	if x, ok := d.field(c.Attributes, peCyclesField, "Invalid P/E cycle rating"); ok {
		e.PECycles = x.(int64)
		if e.PECycles < 1 || e.PECycles > MaxPECycles {
			d.errorf(e.Of("pe_cycles"), "Invalid P/E cycle rating",
				"pe_cycles %d is out of range: give the program/erase cycles the datasheet rates a block for, from 1 to %d (about 3000 for MLC eMMC, 1000 for TLC, 30000 for pSLC).", e.PECycles, MaxPECycles)
		}
	}
	if a, ok := c.Attributes["over_provisioning"]; ok {
		if x, ok := d.share(a); ok {
			e.OverProvisioning = x
		}
	}
	if x, ok := d.field(c.Attributes, writesPerDayField, "Invalid host writes a day"); ok {
		e.WritesPerDay = x.(int64)
		if e.WritesPerDay <= 0 {
			d.errorf(e.Of("writes_per_day"), "Invalid host writes a day",
				"writes_per_day is the bytes the product's host writes a day, such as \"2GiB\", and must be above zero; leave it out to take what the endurance test measures.")
		}
	}
	return e
}

// checkCapacity wants the capacity the kernel reports, which counts
// 512-byte sectors whatever the device's own block size.
func (d *decoder) checkCapacity(e *Endurance, bd *Board) {
	rng := e.Of("capacity")
	switch {
	case e.Capacity <= 0:
		d.errorf(rng, "Invalid flash capacity",
			"capacity is the device's user capacity, such as \"8GiB\" (/sys/block/%s/size × 512 bytes), and must be above zero.", bd.Storage)
	case e.Capacity%512 != 0:
		hint := "\"8GiB\""
		if sectors := e.Capacity / 512; sectors > 0 {
			hint = fmt.Sprintf("\"%ds\"", sectors)
		}
		d.errorf(rng, "Invalid flash capacity",
			"capacity is %d bytes, not a whole number of 512-byte sectors: give the device's user capacity as the kernel counts it, in sectors (/sys/block/%s/size), such as %s.",
			e.Capacity, bd.Storage, hint)
	}
}

// share reads over_provisioning: a share of the capacity from 0 to 1
// (0.07), or a percentage written as settle's ci is ("7%").
func (d *decoder) share(a *hcl.Attribute) (float64, bool) {
	v, ok := d.value(a)
	if !ok {
		return 0, false
	}
	rng := a.Expr.Range()
	const what = "over_provisioning is the spare NAND beyond capacity, as a share of it from 0 to 1 (0.07) or a percentage (\"7%\")"
	var x float64
	switch v.Type() {
	case cty.Number:
		x, _ = v.AsBigFloat().Float64()
	case cty.String:
		s := strings.TrimSpace(v.AsString())
		num, isPct := strings.CutSuffix(s, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		switch {
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			d.errorf(rng, "Invalid over-provisioning", "%s; %q is neither.", what, s)
			return 0, false
		case isPct && (f < 0 || f > 100):
			d.errorf(rng, "Invalid over-provisioning", "%s; %s is not between 0%% and 100%%.", what, s)
			return 0, false
		case isPct:
			return f / 100, true
		}
		x = f
	default:
		d.errorf(rng, "Invalid over-provisioning", "%s, not a %s.", what, v.Type().FriendlyName())
		return 0, false
	}
	shown := strconv.FormatFloat(x, 'g', -1, 64)
	switch {
	case x > 1 && x <= 100:
		d.errorf(rng, "Invalid over-provisioning",
			"over_provisioning is the spare NAND beyond capacity as a share of it, from 0 to 1, and %s would be %s times the capacity: write a share: %s for %s%% (or the string \"%s%%\").",
			shown, shown, strconv.FormatFloat(x/100, 'g', -1, 64), shown, shown)
		return 0, false
	case x < 0 || x > 1:
		d.errorf(rng, "Invalid over-provisioning", "%s; %s is not between 0 and 1: write a share such as 0.07, or leave it out for %g.", what, shown, DefaultOverProvisioning)
		return 0, false
	}
	return x, true
}
