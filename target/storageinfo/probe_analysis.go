package storageinfo

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// AnalysisConfig tunes Analyze. Zero fields take the defaults.
type AnalysisConfig struct {
	// MinEraseBlock is the smallest boundary that can be an erase block.
	// Flash cards also show steps at their page size (8 or 16 KiB in
	// flashbench's example); those are not the erase block. Default 64 KiB.
	MinEraseBlock int64
	// MinZ is how many standard errors a step must stand above the noise.
	// Default 8: flat noise almost never gets there.
	MinZ float64
	// MinStep is the smallest step worth a geometry, as a fraction of the
	// time of one read. Default 0.1: flashbench's example steps by 18%.
	MinStep float64
	// MinStepTime is the smallest step worth a geometry, in time. A read
	// across a flash erase block costs another array read, tens of
	// microseconds; a RAM disk or a file in the page cache can show
	// sub-microsecond steps that say nothing about flash. Default 10 µs.
	MinStepTime time.Duration
}

func (c AnalysisConfig) withDefaults() AnalysisConfig {
	if c.MinEraseBlock == 0 {
		c.MinEraseBlock = 64 << 10
	}
	if c.MinZ == 0 {
		c.MinZ = 8
	}
	if c.MinStep == 0 {
		c.MinStep = 0.1
	}
	if c.MinStepTime == 0 {
		c.MinStepTime = 10 * time.Microsecond
	}
	return c
}

// Estimate is what the timings say about the erase block.
type Estimate struct {
	Found      bool
	EraseBlock int64         // bytes, when Found
	Confidence float64       // 0 to 1: how far the step stands above the noise and how flat it stays after; an ordering, not a probability
	Step       time.Duration // how much slower a read across the boundary is
	Noise      time.Duration // the robust spread of one read's difference
	Boundaries []int64       // every size at which a lasting step stands out, smallest first
	Reason     string        // why nothing was found, or what to doubt
}

// ConfidenceLevel puts the confidence in words: high, medium or low.
func (e Estimate) ConfidenceLevel() string {
	switch {
	case !e.Found:
		return "none"
	case e.Confidence >= 0.7:
		return "high"
	case e.Confidence >= 0.4:
		return "medium"
	}
	return "low"
}

// Analyze looks for the boundary size at which reading across a boundary
// becomes, and stays, slower than reading beside it. For each size it takes
// the differences "across minus the mean of before and after" at every
// position, and their median. A size S is a boundary when, compared with
// the size below it, the medians of S and of every larger size are higher
// by a step that is (a) at least MinZ standard errors of the noise, (b) at
// least MinStep of one read's time and MinStepTime, and (c) lasting: no
// larger size falls back below half the step. The estimate is the largest such size, since a
// card may show smaller steps at its page size too; at least two sizes
// must lie at or above it, so the largest size measured can never be the
// answer. A device with no such behaviour (a RAM disk, a virtual disk)
// gets no estimate, and the reason.
func Analyze(samples []Sample, cfg AnalysisConfig) Estimate {
	cfg = cfg.withDefaults()
	if len(samples) < 3 {
		return Estimate{Reason: fmt.Sprintf("%d boundary sizes measured, at least 3 needed", len(samples))}
	}
	med, noise, base, perSize := summarize(samples)
	se := func(plateau int) float64 {
		return noise * math.Sqrt(1/perSize+1/(perSize*float64(plateau)))
	}
	best, bestZ, bestStep, largestStep := -1, 0.0, 0.0, 0.0
	var bounds []int64
	for k := 1; k <= len(med)-2; k++ {
		if samples[k].Align < cfg.MinEraseBlock {
			continue
		}
		plateau := med[k:]
		step := median(plateau) - med[k-1]
		largestStep = max(largestStep, step)
		z := step / se(len(plateau))
		if step <= 0 || z < cfg.MinZ || step < cfg.MinStep*base || step < float64(cfg.MinStepTime) ||
			slices.Min(plateau)-med[k-1] < step/2 {
			continue
		}
		bounds = append(bounds, samples[k].Align)
		best, bestZ, bestStep = k, z, step
	}
	e := Estimate{Noise: time.Duration(noise), Boundaries: bounds}
	if best < 0 {
		e.Reason = fmt.Sprintf("no lasting step at any boundary from %s on: the largest is %s against a noise of %s per read and reads of %s",
			sizeWords(cfg.MinEraseBlock), time.Duration(largestStep), time.Duration(noise), time.Duration(base))
		return e
	}
	plateau := med[best:]
	flat := 1 - (slices.Max(plateau)-slices.Min(plateau))/bestStep
	e.Found, e.EraseBlock, e.Step = true, samples[best].Align, time.Duration(bestStep)
	e.Confidence = math.Round(100*clamp(1-cfg.MinZ/bestZ)*clamp(flat)) / 100
	if len(bounds) > 1 {
		// Two lasting steps: the larger is the guess, but a card whose
		// erase block is the smaller and which does something else at the
		// larger is possible too.
		e.Confidence = math.Round(50*e.Confidence) / 100
		e.Reason = fmt.Sprintf("steps at %d boundary sizes; the largest taken", len(bounds))
	}
	return e
}

// summarize returns each size's median difference, the pooled noise (the
// median absolute deviation, scaled to a standard deviation), the median
// read time and the number of differences per size.
func summarize(samples []Sample) (med []float64, noise, base, perSize float64) {
	var devs, reads []float64
	for _, s := range samples {
		d := make([]float64, len(s.On))
		for i := range s.On {
			d[i] = float64(s.On[i]) - (float64(s.Pre[i])+float64(s.Post[i]))/2
			reads = append(reads, float64(s.Pre[i]), float64(s.Post[i]))
		}
		m := median(d)
		med = append(med, m)
		for _, v := range d {
			devs = append(devs, math.Abs(v-m))
		}
	}
	base = median(reads)
	// A floor: a clock that ticks coarsely can make every difference
	// identical, and a zero noise would make any step infinitely sure.
	noise = max(1.4826*median(devs), 0.005*base, 1)
	return med, noise, base, float64(len(samples[0].On))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func clamp(x float64) float64 { return min(max(x, 0), 1) }

// sizeWords is a power-of-two size in KiB or MiB.
func sizeWords(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
