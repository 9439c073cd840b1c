package spec_test

import (
	"testing"

	"github.com/fsbench/fsbench/spec"
)

// A board's endurance block, with the defaults it leaves out and the
// percentage form of over_provisioning.
func TestEndurance(t *testing.T) {
	const image = `
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
}
`
	for _, c := range []struct {
		name, block string
		want        *spec.Endurance // nil: no endurance block
	}{
		{"defaults", `endurance {
    capacity  = "8GiB"
    pe_cycles = 3000
  }`, &spec.Endurance{Capacity: 8 << 30, PECycles: 3000, OverProvisioning: spec.DefaultOverProvisioning}},
		{"all", `endurance {
    capacity          = "15269888s"
    pe_cycles         = 30000
    over_provisioning = 0.28
    writes_per_day    = "2GiB"
  }`, &spec.Endurance{Capacity: 15269888 * 512, PECycles: 30000, OverProvisioning: 0.28, WritesPerDay: 2 << 30}},
		{"percent", `endurance {
    capacity          = 8 * 1024 * 1024 * 1024
    pe_cycles         = 1000
    over_provisioning = "12.5%"
  }`, &spec.Endurance{Capacity: 8 << 30, PECycles: 1000, OverProvisioning: 0.125}},
		{"none", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, `board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  `+c.block+`
}
`+image, spec.Options{})
			got := s.Variants[0].Board.Endurance
			if got == nil || c.want == nil {
				if got != c.want {
					t.Fatalf("endurance %+v, want %+v", got, c.want)
				}
				return
			}
			if got.Capacity != c.want.Capacity || got.PECycles != c.want.PECycles ||
				got.OverProvisioning != c.want.OverProvisioning || got.WritesPerDay != c.want.WritesPerDay {
				t.Errorf("endurance %+v, want %+v", *got, *c.want)
			}
			if got.Of("capacity").Start.Line != 5 {
				t.Errorf("capacity at %s, want line 5", got.Of("capacity"))
			}
		})
	}
}
