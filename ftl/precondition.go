package ftl

import (
	"errors"
	"math"
	"math/rand/v2"
)

// Aging stops when two rounds of random overwrites differ by less than
// this in write amplification, or after maxAgeRounds rounds.
const (
	ageTolerance = 0.02
	maxAgeRounds = 64
)

// Preconditioning is what Precondition did.
type Preconditioning struct {
	StaticPages int
	// AgeRounds is the rounds of random overwrites, AgeConverged whether
	// their write amplification settled before maxAgeRounds.
	AgeRounds    int
	AgeConverged bool
	Counters     Counters
}

// Precondition brings a fresh device to the state the trace starts from:
// it writes the static data (the last StaticPages logical pages) once,
// sequentially, in whole pages, and with AgeStatic overwrites it at
// random pages (seeded by Settings.Seed) in rounds until garbage
// collection is in a steady state. The trace's own space stays unmapped,
// as a partition whose free space was discarded.
func (m *Model) Precondition() (Preconditioning, error) {
	if m.err != nil {
		return Preconditioning{}, m.err
	}
	if m.c != (Counters{}) {
		return Preconditioning{}, errors.New("ftl: preconditioning is for a fresh device")
	}
	pc := Preconditioning{StaticPages: m.g.StaticPages}
	first := int32(m.g.LogicalPages - m.g.StaticPages)
	for lp := first; lp < int32(m.g.LogicalPages); lp++ {
		if err := m.programHost(lp); err != nil {
			m.err = err
			return pc, err
		}
	}
	if m.s.AgeStatic && m.g.StaticPages > 0 {
		if err := m.age(first, &pc); err != nil {
			m.err = err
			return pc, err
		}
	}
	pc.Counters = m.c
	return pc, nil
}

// age overwrites random static pages in rounds of a quarter of them (at
// least eight erase blocks' worth) until two rounds, both with garbage
// collection, agree.
func (m *Model) age(first int32, pc *Preconditioning) error {
	rng := rand.New(rand.NewPCG(m.s.Seed, 0x5eed_f7a6))
	round := max(m.g.StaticPages/4, 8*m.g.PagesPerBlock)
	prev := math.NaN()
	for pc.AgeRounds < maxAgeRounds {
		start := m.c
		for range round {
			if err := m.programHost(first + int32(rng.IntN(m.g.StaticPages))); err != nil {
				return err
			}
		}
		pc.AgeRounds++
		d := m.c.Sub(start)
		wa := float64(d.HostPrograms+d.GCPrograms) / float64(d.HostPrograms)
		if d.Erases > 0 && math.Abs(wa-prev) <= ageTolerance*prev {
			pc.AgeConverged = true
			return nil
		}
		if d.Erases > 0 {
			prev = wa
		}
	}
	return nil
}
