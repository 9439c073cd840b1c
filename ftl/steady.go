package ftl

import (
	"errors"
	"math"

	"github.com/fsbench/fsbench/wire/blocktrace"
)

// ErrNoWrites reports a trace that writes nothing: there is no NAND write
// amplification to measure.
var ErrNoWrites = errors.New("ftl: the trace writes nothing")

// Convergence says when a replayed trace has reached its steady state.
// The trace is replayed in rounds of whole passes, each round long enough
// to program RoundBlocks erase blocks' worth of pages, so that a short
// trace is not judged on a handful of collections; the state is steady
// when two successive rounds' write amplification differ by at most
// Tolerance of the earlier one.
type Convergence struct {
	Tolerance   float64 // 0: 0.02
	RoundBlocks int     // 0: 256
	MaxRounds   int     // 0: 40
}

func (c Convergence) withDefaults() Convergence {
	if c.Tolerance <= 0 {
		c.Tolerance = 0.02
	}
	if c.RoundBlocks <= 0 {
		c.RoundBlocks = 256
	}
	if c.MaxRounds <= 0 {
		c.MaxRounds = 40
	}
	return c
}

// Result is a trace's steady state on the modelled device.
type Result struct {
	Settings        Settings
	Geometry        Geometry
	Convergence     Convergence
	Preconditioning Preconditioning
	// WarmupPasses are the passes of the trace before garbage collection
	// first ran: a fresh device's free blocks hide the cost of writes
	// until they run out.
	WarmupPasses   int
	PassesPerRound int
	Rounds         []Counters // each measured round, in order
	Converged      bool
	// Steady is the last two rounds together (the only one if MaxRounds
	// is 1): the figures to report.
	Steady             Counters
	WriteAmplification float64
	// Wear counts erases per block from the trace's first pass on;
	// DeviceWear counts them all, preconditioning's included.
	Wear, DeviceWear Wear
}

// Passes is how many times the trace was replayed in all.
func (r *Result) Passes() int { return r.WarmupPasses + len(r.Rounds)*r.PassesPerRound }

// SteadyState replays a trace on a preconditioned device until its write
// amplification converges, and reports the steady state.
func SteadyState(s Settings, rs []blocktrace.Record, conv Convergence) (*Result, error) {
	m, err := New(s)
	if err != nil {
		return nil, err
	}
	if err := m.CheckTrace(rs); err != nil {
		return nil, err
	}
	if blocktrace.Sum(rs).BytesWritten == 0 {
		return nil, ErrNoWrites
	}
	res := &Result{Settings: m.Settings(), Geometry: m.Geometry(), Convergence: conv.withDefaults()}
	conv = res.Convergence
	if res.Preconditioning, err = m.Precondition(); err != nil {
		return nil, err
	}
	before := m.EraseCounts()
	start := m.Counters()
	// Each pass programs at least the page it leaves buffered, so the
	// free blocks run out within PhysicalPages passes.
	var last Counters
	for m.Counters().Erases == start.Erases {
		if last, err = m.Replay(rs); err != nil {
			return nil, err
		}
		res.WarmupPasses++
	}
	programs := last.HostPrograms + last.GCPrograms
	res.PassesPerRound = int(max(1, (int64(conv.RoundBlocks*m.g.PagesPerBlock)+programs-1)/programs))
	for len(res.Rounds) < conv.MaxRounds {
		at := m.Counters()
		for range res.PassesPerRound {
			if _, err := m.Replay(rs); err != nil {
				return nil, err
			}
		}
		res.Rounds = append(res.Rounds, m.Counters().Sub(at))
		if n := len(res.Rounds); n >= 2 {
			a, b := res.Rounds[n-2].WriteAmplification(), res.Rounds[n-1].WriteAmplification()
			if math.Abs(b-a) <= conv.Tolerance*a {
				res.Converged = true
				break
			}
		}
	}
	n := len(res.Rounds)
	res.Steady = res.Rounds[n-1]
	if n >= 2 {
		res.Steady = res.Rounds[n-2].Add(res.Rounds[n-1])
	}
	res.WriteAmplification = res.Steady.WriteAmplification()
	after := m.EraseCounts()
	res.DeviceWear = summarize(after)
	for i := range after {
		after[i] -= before[i]
	}
	res.Wear = summarize(after)
	return res, nil
}

// Wear summarizes erase counts per block.
type Wear struct {
	Erases   int64 // in all
	Min, Max int64
	Mean     float64
	// Histogram[i] is the number of blocks with an erase count from
	// Min+i*Width to Min+(i+1)*Width-1.
	Width     int64
	Histogram []int
	PerBlock  []int64
}

// histogramBuckets is the most buckets a Wear's histogram has.
const histogramBuckets = 16

func summarize(counts []int64) Wear {
	w := Wear{Min: math.MaxInt64, PerBlock: counts}
	for _, c := range counts {
		w.Erases += c
		w.Min, w.Max = min(w.Min, c), max(w.Max, c)
	}
	w.Mean = float64(w.Erases) / float64(len(counts))
	span := w.Max - w.Min + 1
	w.Width = (span + histogramBuckets - 1) / histogramBuckets
	w.Histogram = make([]int, (span+w.Width-1)/w.Width)
	for _, c := range counts {
		w.Histogram[(c-w.Min)/w.Width]++
	}
	return w
}
