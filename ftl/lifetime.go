package ftl

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// daysPerYear counts leap years.
const daysPerYear = 365.25

// Endurance is what the device's datasheet and its use say.
type Endurance struct {
	// RatedPECycles is the program/erase cycles a block is rated for.
	RatedPECycles float64
	// PhysicalBytes is the real device's NAND capacity. When zero, it is
	// UserBytes × (1 + OverProvisioning); when both are zero, the model's.
	PhysicalBytes int64
	UserBytes     int64
	// HostBytesPerDay is what the host writes a day: typically the
	// trace's bytes scaled to a day of the product's use by the caller.
	HostBytesPerDay float64
}

// Lifetime is a projection of a device's wear-out.
type Lifetime struct {
	// IdealYears is the time until the mean block reaches its rated
	// cycles: what perfect (static) wear leveling gives.
	IdealYears float64
	// WorstYears is the time until the most-worn block does, with the
	// wear as uneven as the model measured it (dynamic wear leveling
	// only: free blocks taken least-erased first, static data never
	// moved).
	WorstYears float64
	// ErasesPerHostByte is the steady state's erases per host byte; it
	// is the write amplification over the erase block size.
	ErasesPerHostByte float64
	// MeanBlockErasesPerDay is the mean block's erases a day on the real
	// device.
	MeanBlockErasesPerDay float64
	// WearSkew is the most-worn block's erases over the mean block's,
	// counted from the trace's first pass; SkewErases is how many erases
	// it is measured on.
	WearSkew   float64
	SkewErases int64
	// Assumptions are to be printed beside the figures.
	Assumptions []string
}

// Lifetime projects the steady state to a device's life: years until the
// mean block (ideal wear leveling) and the most-worn block (the model's
// own) reach the rated cycles.
func (r *Result) Lifetime(e Endurance) (Lifetime, error) {
	var errs []error
	if !(e.RatedPECycles > 0) {
		errs = append(errs, fmt.Errorf("rated P/E cycles %v: want a positive count", e.RatedPECycles))
	}
	if !(e.HostBytesPerDay > 0) || math.IsInf(e.HostBytesPerDay, 0) {
		errs = append(errs, fmt.Errorf("host writes a day %v: want a positive number of bytes", e.HostBytesPerDay))
	}
	if e.PhysicalBytes < 0 || e.UserBytes < 0 {
		errs = append(errs, errors.New("a negative capacity"))
	}
	if r.Steady.HostBytes == 0 {
		errs = append(errs, ErrNoWrites)
	}
	if len(errs) > 0 {
		return Lifetime{}, fmt.Errorf("ftl: lifetime: %w", errors.Join(errs...))
	}
	physical := float64(e.PhysicalBytes)
	switch {
	case e.PhysicalBytes > 0:
	case e.UserBytes > 0:
		physical = float64(e.UserBytes) * (1 + r.Settings.OverProvisioning)
	default:
		physical = float64(r.Geometry.PhysicalPages) * float64(r.Settings.PageSize)
	}
	blocks := physical / float64(r.Settings.EraseBlockSize)
	l := Lifetime{ErasesPerHostByte: float64(r.Steady.Erases) / float64(r.Steady.HostBytes), WearSkew: 1, SkewErases: r.Wear.Erases}
	l.MeanBlockErasesPerDay = l.ErasesPerHostByte * e.HostBytesPerDay / blocks
	l.IdealYears = math.Inf(1)
	if l.MeanBlockErasesPerDay > 0 {
		l.IdealYears = e.RatedPECycles / l.MeanBlockErasesPerDay / daysPerYear
	}
	if r.Wear.Mean > 0 {
		l.WearSkew = float64(r.Wear.Max) / r.Wear.Mean
	}
	l.WorstYears = l.IdealYears / l.WearSkew
	l.Assumptions = append(r.Assumptions(),
		fmt.Sprintf("lifetime: %s written by the host a day, %g rated P/E cycles a block, %s of NAND (%.0f erase blocks); erases per host byte from the steady state (write amplification %.2f)",
			size(int64(e.HostBytesPerDay)), e.RatedPECycles, size(int64(physical)), blocks, r.WriteAmplification),
		fmt.Sprintf("without wear leveling, the most-worn block wears %.2f times as fast as the mean one, as measured on %d erases since the trace began, %.1f a block (on few erases a block the skew is noisy and overstated)",
			l.WearSkew, l.SkewErases, r.Wear.Mean),
	)
	return l, nil
}

// Assumptions describe the model behind a result, one sentence each, to
// be printed beside its figures.
func (r *Result) Assumptions() []string {
	s, g := r.Settings, r.Geometry
	buffer := "a volatile write buffer of one page: host data is programmed when its page is full, when a write moves to another page, or, padded, when a flush or FUA write asks for it (flush padding: " + size(r.Steady.FlushPaddingBytes) + " in the steady state)"
	if s.NoWriteBuffer {
		buffer = "no write buffer: every request programs each page it touches, partial pages merged with their old data"
	}
	static := fmt.Sprintf("%.0f%% of the logical capacity holds static data, written once, sequentially, before the trace", 100*s.StaticShare)
	if s.AgeStatic && g.StaticPages > 0 {
		static = fmt.Sprintf("%.0f%% of the logical capacity holds static data, written before the trace and aged by %d rounds of random overwrites (converged: %v)",
			100*s.StaticShare, r.Preconditioning.AgeRounds, r.Preconditioning.AgeConverged)
	}
	converged := fmt.Sprintf("converged: two rounds within %.0f%%", 100*r.Convergence.Tolerance)
	if !r.Converged {
		converged = fmt.Sprintf("not converged within %d rounds: the figure is the last two rounds'", r.Convergence.MaxRounds)
	}
	return []string{
		fmt.Sprintf("NAND page %s, erase block %s (%d pages), %d erase blocks: %s logical, %s physical, over-provisioning %.1f%%",
			size(s.PageSize), size(s.EraseBlockSize), g.PagesPerBlock, g.Blocks,
			size(s.LogicalBytes), size(int64(g.PhysicalPages)*s.PageSize), 100*g.OverProvisioning()),
		fmt.Sprintf("page-level mapping; greedy garbage collection (victim: the closed block with the fewest valid pages, ties to the least erased) whenever the host would leave fewer than %d free blocks; host writes and GC copies fill separate open blocks; free blocks are taken least-erased first (dynamic wear leveling only, no static wear leveling)",
			s.GCFreeBlocks+1),
		static,
		buffer,
		fmt.Sprintf("steady state: the trace replayed %d times, %d of them before garbage collection first ran, then in rounds of %d (%s)",
			r.Passes(), r.WarmupPasses, r.PassesPerRound, converged),
		"discards unmap whole pages only; reads are ignored",
		"not modelled: read disturb, data retention and refresh, SLC caches and pseudo-SLC modes, bad blocks and spare-block reserves, the device firmware's own mapping unit, buffers and GC policy (a real eMMC differs: this is a model, not a measurement)",
	}
}

// size writes a byte count the way a person reads it: 16 KiB, 3.5 GiB.
func size(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f, u := float64(b), 0
	for math.Abs(f) >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(f, 'f', 2, 64), "0"), ".")
	return s + " " + units[u]
}
