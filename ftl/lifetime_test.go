package ftl

import (
	"math"
	"strings"
	"testing"

	bt "github.com/fsbench/fsbench/wire/blocktrace"
)

// TestLifetimeByHand: 512 erases for 1 GiB of host writes is 2^-21 erases
// a byte. 10 GiB a day on 8 GiB of NAND in 4 MiB blocks (2048 blocks) is
// 5120 erases a day, 2.5 per block: 3000 cycles last 1200 days, 3.285
// years. The most-worn block has twice the mean's erases: half as long.
func TestLifetimeByHand(t *testing.T) {
	r := &Result{
		Settings:           Settings{PageSize: 16 << 10, EraseBlockSize: 4 << 20, OverProvisioning: 0.07},
		Steady:             Counters{HostBytes: 1 << 30, NANDBytes: 2 << 30, Erases: 512},
		WriteAmplification: 2,
		Wear:               summarize([]int64{0, 2, 4, 2}),
	}
	l, err := r.Lifetime(Endurance{RatedPECycles: 3000, PhysicalBytes: 8 << 30, HostBytesPerDay: 10 << 30})
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got/want-1) < 1e-9 }
	if !near(l.ErasesPerHostByte, 1.0/(1<<21)) || !near(l.MeanBlockErasesPerDay, 2.5) ||
		!near(l.IdealYears, 1200/365.25) || !near(l.WearSkew, 2) || !near(l.WorstYears, 600/365.25) {
		t.Errorf("%+v", l)
	}
	// From the user capacity: 8 GiB × 1.07 of NAND lasts 7% longer.
	u, err := r.Lifetime(Endurance{RatedPECycles: 3000, UserBytes: 8 << 30, HostBytesPerDay: 10 << 30})
	if err != nil || !near(u.IdealYears, 1.07*1200/365.25) {
		t.Errorf("from the user capacity: %v %v", u.IdealYears, err)
	}
	for _, want := range []string{"10 GiB written by the host a day", "3000 rated P/E cycles", "8 GiB of NAND (2048 erase blocks)", "2.00 times as fast"} {
		if !strings.Contains(strings.Join(l.Assumptions, "\n"), want) {
			t.Errorf("assumptions lack %q:\n%s", want, strings.Join(l.Assumptions, "\n"))
		}
	}
	_, err = r.Lifetime(Endurance{HostBytesPerDay: math.Inf(1)})
	if err == nil || !strings.Contains(err.Error(), "rated P/E cycles 0") || !strings.Contains(err.Error(), "host writes a day +Inf") {
		t.Errorf("bad endurance: %v", err)
	}
}

// TestAssumptions: a real result says what it assumed.
func TestAssumptions(t *testing.T) {
	s := emmc
	s.StaticShare = 0.5
	r, err := SteadyState(s, []bt.Record{w(0, 32), w(64, 8), {Op: bt.Flush}}, Convergence{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.Lifetime(Endurance{RatedPECycles: 3000, HostBytesPerDay: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(l.Assumptions, "\n")
	for _, want := range []string{
		"NAND page 16 KiB, erase block 1 MiB (64 pages), 69 erase blocks: 64 MiB logical, 69 MiB physical, over-provisioning 7.8%",
		"greedy garbage collection", "fewer than 3 free blocks", "no static wear leveling",
		"50% of the logical capacity holds static data",
		"a volatile write buffer of one page", "flush padding",
		"steady state: the trace replayed",
		"not modelled: read disturb, data retention",
		"1 GiB written by the host a day",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("assumptions lack %q:\n%s", want, text)
		}
	}
	if math.IsInf(l.IdealYears, 0) || l.IdealYears <= 0 || l.WorstYears > l.IdealYears {
		t.Errorf("lifetime %+v", l)
	}
}
