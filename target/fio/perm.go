package fio

import (
	"hash/fnv"
	"math/bits"
	"strconv"
)

// blockOrder is a pseudo-random permutation of the block indexes [0, n):
// at(0), at(1), ... at(n-1) visits every block exactly once, which is what
// fio's random map guarantees for a pass over a file. It is a 4-round
// Feistel network over the smallest even number of bits that covers n,
// walked until it lands below n, so it needs no memory per block and is the
// same on every run for the same seed.
type blockOrder struct {
	n    uint64
	half uint   // bits per Feistel half
	mask uint64 // (1 << half) - 1
	keys [4]uint64
}

func newBlockOrder(n, seed uint64) blockOrder {
	half := uint(1)
	if n > 1 {
		half = uint(bits.Len64(n-1)+1) / 2
	}
	o := blockOrder{n: n, half: half, mask: 1<<half - 1}
	for i := range o.keys {
		seed = splitmix64(seed)
		o.keys[i] = seed
	}
	return o
}

// at returns the i-th block of the order, for i < n. Every step of the walk
// stays inside the Feistel domain, at most four times n, so the walk ends
// after a few steps on average.
func (o *blockOrder) at(i uint64) uint64 {
	x := i
	for {
		x = o.feistel(x)
		if x < o.n {
			return x
		}
	}
}

func (o *blockOrder) feistel(x uint64) uint64 {
	l, r := x>>o.half, x&o.mask
	for _, k := range o.keys {
		l, r = r, l^(splitmix64(r^k)&o.mask)
	}
	return l<<o.half | r
}

// splitmix64 is the finaliser of the SplitMix64 generator: a cheap
// bijective mix of 64 bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// seedFor derives a seed from the job's name and numbers, so that the same
// spec gives the same offsets and mix on every run.
func seedFor(name string, nums ...int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	for _, n := range nums {
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(n), 10))
	}
	return h.Sum64()
}

// mixRand is a small deterministic generator (xorshift64*) for fio's
// rwmixread draws.
type mixRand struct{ s uint64 }

func newMixRand(seed uint64) mixRand { return mixRand{s: splitmix64(seed) | 1} }

func (m *mixRand) next() uint64 {
	m.s ^= m.s >> 12
	m.s ^= m.s << 25
	m.s ^= m.s >> 27
	return m.s * 0x2545f4914f6cdd1d
}

// between returns a number in [lo, hi], like fio's rand_between.
func (m *mixRand) between(lo, hi int) int {
	return lo + int(m.next()%uint64(hi-lo+1))
}
