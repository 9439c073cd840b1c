package storageinfo

import (
	"reflect"
	"strings"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Entry is one fact as a result carries it: a name, and either a value or
// the reason there is none.
type Entry struct {
	Name string
	Fact Fact
}

// Entries lists every fact of the Info, in a fixed order.
func (in *Info) Entries() []Entry {
	var out []Entry
	walkFacts(reflect.ValueOf(in).Elem(), func(name string, f *Fact) {
		out = append(out, Entry{Name: name, Fact: *f})
	})
	return out
}

// Report turns the Info into a result's metrics and attributes. A numeric
// fact becomes a metric (erase_group_size = 524288 bytes) and its source
// the attribute erase_group_size.source; a fact in words becomes the
// attribute itself (life_time_est_a = "0x01 (0-10% of life used)"); a fact
// that is not available becomes the attribute "not available: <why>", and
// never a metric.
func (in *Info) Report() ([]resultframe.Metric, map[string]string) {
	var metrics []resultframe.Metric
	attrs := map[string]string{"storage": in.Disk}
	for _, e := range in.Entries() {
		f := e.Fact
		switch {
		case !f.Known():
			attrs[e.Name] = "not available: " + f.Why()
			continue
		case f.Numeric():
			metrics = append(metrics, resultframe.Metric{Name: e.Name, Value: f.Num, Unit: f.Unit})
		}
		if f.Text != "" {
			attrs[e.Name] = f.Text
		}
		if f.Source != "" {
			attrs[e.Name+".source"] = f.Source
		}
	}
	g := in.Geometry()
	if g.Unit.Known() {
		metrics = append(metrics, resultframe.Metric{Name: "stated_erase_unit", Value: g.Unit.Num, Unit: "bytes"})
		attrs["stated_erase_unit.source"] = g.Unit.Source
	} else {
		attrs["stated_erase_unit"] = "not available: " + g.Unit.Why()
	}
	return metrics, attrs
}

// Geometry is the erase unit the device states about itself.
type Geometry struct {
	Unit Fact // bytes, with the register it came from, or why none
}

// Geometry answers "what erase unit does the device state?", preferring,
// in order: the eMMC's high-capacity erase group (EXT_CSD
// HC_ERASE_GRP_SIZE), an SD card's allocation unit (SD Status AU_SIZE),
// and the kernel's preferred_erase_size. The kernel derives the last from
// the first two when the card gives them and otherwise guesses from the
// capacity (mmc_init_erase), which is why it comes last.
func (in *Info) Geometry() Geometry {
	for _, f := range []Fact{in.ExtCSD.HCEraseGroupSize, in.SD.AUSize, in.Kernel.PreferredEraseSize} {
		if f.Known() {
			return Geometry{Unit: f}
		}
	}
	why := []string{
		"EXT_CSD HC_ERASE_GRP_SIZE: " + in.ExtCSD.HCEraseGroupSize.Why(),
		"SD Status AU_SIZE: " + in.SD.AUSize.Why(),
		"preferred_erase_size: " + in.Kernel.PreferredEraseSize.Why(),
	}
	return Geometry{Unit: missing("the device states no erase unit (%s)", strings.Join(why, "; "))}
}
