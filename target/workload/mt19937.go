package workload

// MT19937 is the Mersenne Twister of Matsumoto and Nishimura (ACM TOMACS
// 8(1), 1998) with its original seeding routine, sgenrand, a linear
// congruential generator (69069) that fills the state 16 bits at a time.
// PostMark 1.5x draws its random numbers from exactly this generator, so a
// Seed here gives the sequence PostMark gives with that seed. Later MT
// releases seed differently (init_genrand), so math/rand and most MT
// libraries would not reproduce it.
type MT19937 struct {
	mt [mtN]uint32
	i  int
}

const (
	mtN       = 624
	mtM       = 397
	mtMatrixA = 0x9908b0df
	mtUpper   = 0x80000000
	mtLower   = 0x7fffffff
)

// NewMT19937 seeds a generator as init_genrand does.
func NewMT19937(seed uint32) *MT19937 {
	m := &MT19937{i: mtN}
	for i := range m.mt {
		hi := seed & 0xffff0000
		seed = 69069*seed + 1
		m.mt[i] = hi | (seed&0xffff0000)>>16
		seed = 69069*seed + 1
	}
	return m
}

// Next is genrand: a uniform 32-bit number.
func (m *MT19937) Next() uint32 {
	if m.i >= mtN {
		m.twist()
	}
	y := m.mt[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// twist makes the next mtN words in place; words past k+mtM wrap around to
// ones already renewed, as in the reference.
func (m *MT19937) twist() {
	for k := 0; k < mtN; k++ {
		y := m.mt[k]&mtUpper | m.mt[(k+1)%mtN]&mtLower
		v := m.mt[(k+mtM)%mtN] ^ y>>1
		if y&1 != 0 {
			v ^= mtMatrixA
		}
		m.mt[k] = v
	}
	m.i = 0
}

// Rnd is PostMark's RND(x): a number in [0, x), and 0 without drawing when
// x is not positive.
func (m *MT19937) Rnd(x int) int {
	if x <= 0 {
		return 0
	}
	return int(m.Next() % uint32(x))
}
