package report

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fsbench/fsbench/ftl"
	"github.com/fsbench/fsbench/internal/units"
	"github.com/fsbench/fsbench/report/svg"
	"github.com/fsbench/fsbench/wire/blocktrace"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// The flash model of one endurance result: its block trace replayed on a
// model of the device's flash translation layer (package ftl) until the
// write amplification is steady, and with the board's rated P/E cycles a
// projected lifetime. What the model is not told it assumes, and says so.

// The defaults of a result whose spec gives no flash geometry, and of a
// board without an endurance block: a common eMMC's NAND page and erase
// block, and the spare of a device whose NAND counts binary gigabytes and
// whose capacity decimal ones.
const (
	defaultPageSize         = 16 << 10
	defaultEraseBlock       = 4 << 20
	defaultOverProvisioning = 0.07
)

// modelBudget bounds the requests one model replays (passes of the trace
// times its length), so that a report builds in seconds: the model
// replays some ten million requests a second (BenchmarkFlashModel). A
// busy day's trace (10^5 requests) reaches its steady state in a few
// passes, some 30 ms; one that programs few pages a pass needs many, and
// gets fewer rounds, or is not modelled.
const modelBudget = 20_000_000

// flashModel is what the model made of one endurance result.
type flashModel struct {
	res  *ftl.Result
	life *ftl.Lifetime // nil without rated P/E cycles
	// lifeWhy says why there is no lifetime.
	lifeWhy string
	// deviceDay is the bytes the partition's device wrote a day (the
	// result's device_bytes_per_day), nandDay what the NAND programs for
	// them; fsWA the filesystem's write amplification (0: not measured).
	deviceDay, nandDay, fsWA float64
	// hostDay is the device-level bytes a day the lifetime is projected
	// for: deviceDay, or the board's writes_per_day carried through fsWA.
	hostDay     float64
	assumptions []string
}

// settingsOf builds the model's device from a result's attributes: the
// spec's geometry of the partition, the board's endurance block, and the
// partition's size. The partition occupies the start of the logical space
// (its trace's sectors are relative to its start); the rest of the device
// is static data.
func settingsOf(r *resultframe.Result) (ftl.Settings, []string, error) {
	var notes []string
	var errs []error
	get := func(key string) (int64, bool) {
		n, ok, err := attrInt(r, key)
		if err != nil {
			errs = append(errs, err)
		}
		return n, ok && err == nil
	}
	s := ftl.Settings{PageSize: defaultPageSize, EraseBlockSize: defaultEraseBlock, OverProvisioning: defaultOverProvisioning}
	if n, ok := get("flash_page_size"); ok {
		s.PageSize = n
		notes = append(notes, "NAND page "+sizeText(float64(n))+": the spec's geometry (page_size)")
	} else {
		notes = append(notes, "NAND page "+sizeText(defaultPageSize)+": assumed, the spec's geometry gives no page_size")
	}
	if n, ok := get("flash_erase_block"); ok {
		s.EraseBlockSize = n
		notes = append(notes, "erase block "+sizeText(float64(n))+": the spec's geometry (erase_block)")
	} else {
		notes = append(notes, "erase block "+sizeText(defaultEraseBlock)+": assumed, the spec's geometry gives no erase_block")
	}
	part, hasPart := get("partition_bytes")
	capacity, hasCap := get("flash_capacity")
	if !hasPart {
		errs = append(errs, errors.New("the result does not say the partition's size (attribute partition_bytes)"))
	}
	switch f, ok, err := attrFloat(r, "flash_over_provisioning"); {
	case err != nil:
		errs = append(errs, err)
	case ok:
		s.OverProvisioning = f
		notes = append(notes, fmt.Sprintf("over-provisioning %.1f%%: the board's endurance block", 100*f))
	default:
		notes = append(notes, fmt.Sprintf("over-provisioning %.1f%%: assumed, the board has no endurance block", 100*defaultOverProvisioning))
	}
	if len(errs) > 0 {
		return s, notes, errors.Join(errs...)
	}
	s.LogicalBytes = part
	if hasCap {
		s.LogicalBytes = capacity
		if capacity < part {
			return s, notes, fmt.Errorf("the partition's %s do not fit the board's flash capacity of %s", sizeText(float64(part)), sizeText(float64(capacity)))
		}
		// Whole pages of static data, so that the trace's space covers the
		// whole partition.
		logical := (capacity + s.PageSize - 1) / s.PageSize
		s.StaticShare = float64((capacity-part)/s.PageSize) / float64(logical)
		notes = append(notes, fmt.Sprintf("logical capacity %s: the board's endurance block; the partition's %s at its start take the trace, the other %s are static data",
			sizeText(float64(capacity)), sizeText(float64(part)), sizeText(float64(capacity-part))))
	} else {
		notes = append(notes, fmt.Sprintf("logical capacity %s: the partition alone, as if the device held nothing else (the board has no endurance block)",
			sizeText(float64(part))))
	}
	return s, notes, nil
}

// convergenceFor bounds the model's rounds so that it replays at most
// modelBudget requests: it replays the trace once on a fresh device to
// learn how many pages a pass programs, which says how many passes the
// free blocks last (the warm-up) and how many make a round.
func convergenceFor(s ftl.Settings, rs []blocktrace.Record) (ftl.Convergence, string, error) {
	conv := ftl.Convergence{}
	m, err := ftl.New(s)
	if err != nil {
		return conv, "", err
	}
	if _, err := m.Precondition(); err != nil {
		return conv, "", err
	}
	c, err := m.Replay(rs)
	if err != nil {
		return conv, "", err
	}
	g := m.Geometry()
	programs := max(c.HostPrograms+c.GCPrograms, 1)
	free := int64(g.PhysicalPages - g.StaticPages)
	warmup := (free + programs - 1) / programs
	const roundBlocks, maxRounds = 256, 40 // ftl's defaults
	perRound := max(1, (int64(roundBlocks*g.PagesPerBlock)+programs-1)/programs)
	passes := int64(modelBudget / max(len(rs), 1))
	rounds := (passes - warmup) / perRound
	switch {
	case rounds >= maxRounds:
		return conv, "", nil
	case rounds < 2:
		return conv, "", fmt.Errorf("a pass of the trace programs %d NAND pages, so the model would replay its %d requests about %d times to reach a steady state, more than the report's budget of %d requests",
			programs, len(rs), warmup+2*perRound, modelBudget)
	}
	conv.MaxRounds = int(rounds)
	return conv, fmt.Sprintf("the report bounds the model to %d rounds (%d requests replayed at most), so that it builds in seconds", rounds, modelBudget), nil
}

// modelResult runs the model on an endurance result whose trace is whole.
func modelResult(r *resultframe.Result) (*flashModel, error) {
	rs, err := blocktrace.DecodeString(r.Attrs["block_trace"])
	if err != nil {
		return nil, fmt.Errorf("the trace does not decode: %w", err)
	}
	s, notes, err := settingsOf(r)
	if err != nil {
		return nil, err
	}
	tot := blocktrace.Sum(rs)
	if tot.BytesWritten == 0 {
		return nil, ftl.ErrNoWrites
	}
	conv, bound, err := convergenceFor(s, rs)
	if err != nil {
		return nil, err
	}
	res, err := ftl.SteadyState(s, rs, conv)
	if err != nil {
		return nil, err
	}
	fm := &flashModel{res: res}
	fm.deviceDay, _ = metricOf(r, "device_bytes_per_day")
	workDay, hasWork := metricOf(r, "workload_bytes_per_day")
	if hasWork && workDay > 0 {
		fm.fsWA = fm.deviceDay / workDay
	}
	fm.nandDay = fm.deviceDay * res.WriteAmplification
	frac, _ := metricOf(r, "day_fraction")
	notes = append(notes, fmt.Sprintf("the trace of iteration %d: %d requests, %s written, %s discarded, %d flushes, over %s of a day",
		r.Iteration, tot.Records, sizeText(float64(tot.BytesWritten)), sizeText(float64(tot.BytesDiscarded)), tot.Flushes, svg.Num(frac)))
	if bound != "" && !res.Converged {
		notes = append(notes, bound)
	}
	fm.lifetime(r, s, hasWork && workDay > 0, &notes)
	fm.assumptions = append(notes, fm.modelAssumptions()...)
	return fm, nil
}

// lifetime projects the steady state onto the board's rated cycles, at
// the bytes the device writes a day: the product's, from the board's
// writes_per_day carried through the filesystem's write amplification
// measured here, else the test's own.
func (fm *flashModel) lifetime(r *resultframe.Result, s ftl.Settings, hasWork bool, notes *[]string) {
	cycles, hasCycles, err := attrInt(r, "flash_pe_cycles")
	switch {
	case err != nil:
		fm.lifeWhy = err.Error()
		return
	case !hasCycles:
		fm.lifeWhy = "the results carry no rated P/E cycles: give the board an endurance block (capacity, pe_cycles) for the projected lifetime"
		return
	}
	fm.hostDay = fm.deviceDay
	if perDay, ok, err := attrInt(r, "flash_writes_per_day"); ok && err == nil {
		if !hasWork || fm.fsWA == 0 {
			fm.lifeWhy = "the board's writes_per_day are the application's bytes, and this result measured no workload bytes to carry them to the device"
			return
		}
		fm.hostDay = float64(perDay) * fm.fsWA
		*notes = append(*notes, fmt.Sprintf("the product writes %s a day (the board's writes_per_day); times the filesystem's write amplification measured here (%s) that is %s a day to the device",
			sizeText(float64(perDay)), svg.Num(fm.fsWA), sizeText(math.Round(fm.hostDay))))
	} else {
		*notes = append(*notes, fmt.Sprintf("the device receives %s a day, the test's own writes scaled to a day (the board gives no writes_per_day)",
			sizeText(math.Round(fm.hostDay))))
	}
	capacity, _, _ := attrInt(r, "flash_capacity")
	l, err := fm.res.Lifetime(ftl.Endurance{RatedPECycles: float64(cycles), UserBytes: capacity, HostBytesPerDay: fm.hostDay})
	if err != nil {
		fm.lifeWhy = err.Error()
		return
	}
	fm.life = &l
}

// modelAssumptions are the model's own sentences: the lifetime's, which
// include the steady state's, or the steady state's alone.
func (fm *flashModel) modelAssumptions() []string {
	if fm.life != nil {
		return fm.life.Assumptions
	}
	return fm.res.Assumptions()
}

// erasesPerGiB is the steady state's erases per GiB the device wrote.
func (fm *flashModel) erasesPerGiB() float64 {
	return float64(fm.res.Steady.Erases) / float64(fm.res.Steady.HostBytes) * float64(units.GiB)
}

// years writes a lifetime.
func years(y float64) string {
	if math.IsInf(y, 1) {
		return "unbounded (no erase in the steady state)"
	}
	return svg.Num(y) + " years"
}

// flushShare is the share of the NAND's programmed bytes that flushes
// forced before their page was full: the cost of fsync on flash.
func (fm *flashModel) flushShare() string {
	st := fm.res.Steady
	if st.NANDBytes == 0 {
		return "-"
	}
	return pct(100 * float64(st.FlushPaddingBytes) / float64(st.NANDBytes))
}

// joinWhy makes an error one sentence's clause.
func joinWhy(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
