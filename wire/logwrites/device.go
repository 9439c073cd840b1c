package logwrites

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// The log holds the writes in the order they completed, and a prefix of
// it is what a device that keeps that order leaves at a power cut. The
// devices of embedded systems do not all keep it: a volatile write cache
// writes back the writes since the last flush in any order, or some of
// them only; a card tears a request at a power cut, leaving some of its
// sectors old; a cheap card acknowledges flushes it never honours. A
// Device says which of these a state may show, and a Space lists the
// states it adds to the prefixes, without running anything again: each
// is the prefix up to where the device last held everything, then the
// writes after it that persisted, out of order, some of them dropped or
// torn.

// The device models.
const (
	// ModelPrefix persists writes in the order they completed: the
	// states are the log's prefixes at the crash points (Log.States).
	ModelPrefix = "prefix"
	// ModelReorder persists any subset of the writes a flush has not
	// made durable yet: every subset that drops at most Device.Drop of
	// them, then Device.Samples random ones that drop more.
	ModelReorder = "reorder"
	// ModelTorn tears one of those writes: a prefix, a suffix or a
	// subset of its units of Device.Tear bytes persisted, the rest of the
	// writes whole.
	ModelTorn = "torn"
)

// OrderMark is set by the recorder before a flush of its own, which it
// sends so that the writes that completed before a workload's mark are
// logged before the mark (dm-log-writes holds a write that is neither
// FUA nor flushed until the next flush, and logs a mark at once). That
// flush is no crash point and makes nothing durable: the filesystem did
// not send it.
const OrderMark = "fsb:o"

// Device is a model of how a device treats the writes it acknowledged
// when the power goes.
type Device struct {
	Model string
	// IgnoreFlush: flushes and FUA writes are acknowledged and not
	// honoured; what the device holds becomes durable only at its own
	// write-back, after every Writeback writes (0: never), counted from
	// the filesystem's creation, which is durable.
	IgnoreFlush bool
	Writeback   int
	Drop        int    // reorder: the most writes a state loses in full enumeration
	Samples     int    // random states beyond, per crash point (reorder) or per torn write
	Tear        int64  // torn: the bytes of the unit a tear keeps or loses
	Seed        uint64 // of the random states, and of the budget's choice
}

// Beyond is what a model state holds beyond a prefix: the entries from
// State.Applied to Upto that persisted, out of order, without those in
// Drop, and with entry Torn (when not -1) in part: the units of Keep.
type Beyond struct {
	Model string
	// At is the crash's place in the log: the marks of the entries
	// before it are what the workload had been promised.
	At    int
	Upto  int
	Drop  []int
	Torn  int
	Keep  []uint64 // a bit per unit, from the write's first
	Unit  int64    // the unit's bytes
	Units int      // the torn write's units
}

// Space is the states a device model gives a log: the prefix states at
// the crash points first, then each point's others.
type Space struct {
	Log    *Log
	Device Device
	// Prefix are the prefix states; the model's other states follow
	// them in the enumeration.
	Prefix []State
	// Total counts the states enumerated, the prefix ones included;
	// Possible those that exist under the model (2^n subsets of n
	// unflushed writes, 2^u-2 tears of a write of u units).
	Total    int64
	Possible float64
	groups   []group
	vol      []int // every write a flush has not made durable, in log order
}

// group is one crash point's states beyond its prefix: the window of
// entries [w, end) that persist out of order, its unflushed writes
// vol[lo:hi], and for a tear the writes that may tear with their count
// of states.
type group struct {
	at, w, end int
	lo, hi     int
	first      int64 // the enumeration's index of the group's first state
	count      int64
	torn       []int
	tornFirst  []int64
}

// Space lists the states of the log's crash points p under device d.
func (l *Log) Space(p Points, d Device) *Space {
	s := &Space{Log: l, Device: d, Prefix: l.States(p)}
	for i := range s.Prefix {
		s.Prefix[i].N = i + 1
	}
	s.Total, s.Possible = int64(len(s.Prefix)), float64(len(s.Prefix))
	if d.Model != ModelReorder && d.Model != ModelTorn {
		return s
	}
	durable := l.durableAt(p.From, d)
	volatile := func(i int) bool {
		e := l.Entries[i]
		return (e.HasData() || e.Discard()) && !(!d.IgnoreFlush && e.FUA())
	}
	for i := p.From; i < len(l.Entries); i++ {
		if volatile(i) {
			s.vol = append(s.vol, i)
		}
	}
	for _, st := range s.Prefix {
		at := st.Applied - 1
		g := group{at: at, w: durable[at], end: at + 1, first: s.Total}
		if e := l.Entries[at]; e.Flush() && !d.IgnoreFlush {
			// The flush's own data is written once the writes before it
			// are durable: a state that lost one of them lacks it too.
			g.end = at
		}
		g.lo, g.hi = sort.SearchInts(s.vol, g.w), sort.SearchInts(s.vol, g.end)
		if d.Model == ModelReorder {
			s.reorderGroup(&g)
		} else {
			s.tornGroup(&g)
		}
		s.Total += g.count
		s.groups = append(s.groups, g)
	}
	return s
}

// durableAt gives, for every entry, the first entry of its window: all
// before it is durable. An honoured flush closes the window (its own
// data belongs to the next one unless it is FUA); a device that ignores
// flushes closes it only at its write-back.
func (l *Log) durableAt(from int, d Device) []int {
	out := make([]int, len(l.Entries))
	w, writes := from, 0
	var o orderingFlush
	for i, e := range l.Entries {
		out[i] = w
		ordering := o.is(e)
		switch {
		case i < from:
			out[i] = i + 1
		case d.IgnoreFlush && e.HasData():
			if writes++; d.Writeback > 0 && writes%d.Writeback == 0 {
				w = i + 1
			}
		case !d.IgnoreFlush && e.Flush() && !ordering:
			w = i
			if e.FUA() || !e.HasData() {
				w = i + 1
			}
		}
	}
	return out
}

// orderingFlush tells, entry by entry in log order, whether it is the
// recorder's flush: the first flush without data after an OrderMark.
type orderingFlush struct{ pending bool }

func (o *orderingFlush) is(e Entry) bool {
	switch {
	case e.IsMark():
		o.pending = e.Mark == OrderMark
	case e.Flush() && !e.HasData() && o.pending:
		o.pending = false
		return true
	}
	return false
}

// reorderGroup counts a crash point's subsets of its n unflushed writes
// that drop 1 to Drop of them, and the samples that drop more.
func (s *Space) reorderGroup(g *group) {
	n := g.hi - g.lo
	for j := 1; j <= min(s.Device.Drop, n); j++ {
		g.count += binomial(n, j)
	}
	if n > s.Device.Drop {
		g.count += int64(s.Device.Samples)
	}
	s.Possible += math.Exp2(float64(n)) - 1
}

// tornGroup lists the writes that may tear at a crash point: its
// unflushed writes with data, and the point's own write. Each gives its
// prefixes and suffixes, then samples; a write of few units gives every
// subset instead.
func (s *Space) tornGroup(g *group) {
	for _, i := range s.vol[g.lo:g.hi] {
		if s.Log.Entries[i].HasData() {
			g.torn = append(g.torn, i)
		}
	}
	if e := s.Log.Entries[g.at]; e.HasData() && !slices.Contains(g.torn, g.at) {
		g.torn = append(g.torn, g.at)
	}
	for _, t := range g.torn {
		u := s.units(t)
		g.tornFirst = append(g.tornFirst, g.count)
		g.count += tornCount(u, s.Device.Samples)
		s.Possible += math.Exp2(float64(u)) - 2
	}
}

// units is the number of tear units of entry t's write.
func (s *Space) units(t int) int {
	b := int64(s.Log.Entries[t].Sectors) * s.Log.SectorSize
	return int((b + s.Device.Tear - 1) / s.Device.Tear)
}

// tornCount is how many tears of a write of u units are enumerated:
// its prefixes and suffixes, and with 4 units or more, samples.
func tornCount(u, samples int) int64 {
	switch {
	case u < 2:
		return 0
	case u < 4:
		return int64(2 * (u - 1))
	}
	return int64(2*(u-1) + samples)
}

// State returns the state numbered n (from 1) of the enumeration.
func (s *Space) State(n int64) State {
	i := n - 1
	if i < int64(len(s.Prefix)) {
		return s.Prefix[i]
	}
	k := sort.Search(len(s.groups), func(k int) bool { return s.groups[k].first+s.groups[k].count > i })
	g := &s.groups[k]
	r := i - g.first
	b := &Beyond{Model: s.Device.Model, At: g.at + 1, Upto: g.end, Torn: -1}
	st := State{Applied: g.w, Point: s.Prefix[k].Point, N: int(n), Beyond: b}
	rng := rand.New(rand.NewPCG(s.Device.Seed, uint64(n)))
	if s.Device.Model == ModelReorder {
		b.Drop = s.dropped(g, r, rng)
		return st
	}
	j := sort.Search(len(g.tornFirst), func(j int) bool { return g.tornFirst[j] > r }) - 1
	b.Torn = g.torn[j]
	b.Upto = max(g.end, b.Torn+1)
	b.Unit = s.Device.Tear
	u := s.units(b.Torn)
	b.Units = u
	b.Keep = tear(u, r-g.tornFirst[j], rng)
	return st
}

// dropped is the r-th subset of a group's unflushed writes to drop: by
// size, then in lexicographic order, then the random samples.
func (s *Space) dropped(g *group, r int64, rng *rand.Rand) []int {
	v := s.vol[g.lo:g.hi]
	n := len(v)
	for j := 1; j <= min(s.Device.Drop, n); j++ {
		c := binomial(n, j)
		if r < c {
			return unrank(v, j, r)
		}
		r -= c
	}
	// A sample drops more than Drop: a random count, random writes.
	j := s.Device.Drop + 1 + rng.IntN(n-s.Device.Drop)
	idx := rng.Perm(n)[:j]
	slices.Sort(idx)
	out := make([]int, j)
	for k, x := range idx {
		out[k] = v[x]
	}
	return out
}

// unrank returns the r-th subset of j elements of v in lexicographic
// order.
func unrank(v []int, j int, r int64) []int {
	out := make([]int, 0, j)
	for i := 0; len(out) < j; i++ {
		rest := j - len(out) - 1
		if c := binomial(len(v)-i-1, rest); r >= c {
			r -= c
			continue
		}
		out = append(out, v[i])
	}
	return out
}

// tear is the q-th tear of a write of u units: a prefix of 1 to u-1
// units, a suffix of 1 to u-1, then random subsets.
func tear(u int, q int64, rng *rand.Rand) []uint64 {
	keep := make([]uint64, (u+63)/64)
	set := func(from, to int) {
		for i := from; i < to; i++ {
			keep[i/64] |= 1 << (i % 64)
		}
	}
	switch {
	case q < int64(u-1):
		set(0, int(q)+1)
	case q < int64(2*(u-1)):
		set(u-int(q-int64(u-1))-1, u)
	default:
		for i := range u {
			if rng.IntN(2) == 1 {
				set(i, i+1)
			}
		}
		if i := rng.IntN(u); keep[0] == 0 || popcount(keep) == u {
			keep[i/64] ^= 1 << (i % 64)
		}
	}
	return keep
}

func popcount(k []uint64) int {
	n := 0
	for _, w := range k {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// binomial is n choose j, saturating at the largest int64.
func binomial(n, j int) int64 {
	if j < 0 || j > n {
		return 0
	}
	c := 1.0
	for i := 1; i <= j; i++ {
		c = c * float64(n-j+i) / float64(i)
	}
	if c >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Round(c))
}

// Choose takes up to budget of the states, in replay order. All of them
// when they fit; else the prefix states first, then the model's others
// chosen at random from the device's seed. When the prefix states alone
// would fill the budget of a model that adds states, they get half of
// it, evenly spread with the last included, so that the model's states
// are checked too. It says which rule it applied.
func (s *Space) Choose(budget int) ([]State, string) {
	p := int64(len(s.Prefix))
	if s.Total <= int64(budget) {
		all := make(map[int64]bool, s.Total-p)
		for i := range s.Total - p {
			all[i] = true
		}
		return s.ordered(s.spread(p), all), "every state"
	}
	kp := min(p, int64(budget))
	if s.Total > p && kp > int64(budget)/2 && int64(budget) > 1 {
		kp = max(int64(budget)/2, int64(budget)-(s.Total-p))
	}
	m, n := int64(budget)-kp, s.Total-p
	rule := "max_states " + itoa(budget) + " of " + itoa(int(s.Total)) + ": "
	if kp < p {
		rule += itoa(int(kp)) + " of the " + itoa(int(p)) + " prefix states evenly spread"
	} else {
		rule += "the " + itoa(int(p)) + " prefix states"
	}
	if m == 0 {
		return s.ordered(s.spread(kp), nil), rule
	}
	rng := rand.New(rand.NewPCG(s.Device.Seed, 'b'))
	pick := make(map[int64]bool, m)
	rule += ", then " + itoa(int(m)) + " of the " + itoa(int(n)) + " others at random"
	if s.Device.Model == ModelTorn {
		rule += ", each (crash point, torn write) as likely"
		s.pickTears(m, rng, pick)
	}
	floyd(n, m-int64(len(pick)), rng, pick)
	rule += " (seed " + itoa(int(s.Device.Seed)) + ")"
	return s.ordered(s.spread(kp), pick), rule
}

// floyd adds m of the numbers [0, n) that pick lacks, chosen at random
// without replacement (Floyd's algorithm, over the numbers not picked).
func floyd(n, m int64, rng *rand.Rand, pick map[int64]bool) {
	if m <= 0 {
		return
	}
	free := n - int64(len(pick))
	chosen := make(map[int64]bool, m)
	for j := free - m; j < free; j++ {
		if t := rng.Int64N(j + 1); !chosen[t] {
			chosen[t] = true
		} else {
			chosen[j] = true
		}
	}
	// The k-th free number, for each chosen k, in one pass.
	ks := make([]int64, 0, len(chosen))
	for k := range chosen {
		ks = append(ks, k)
	}
	// sort.Slice rather than slices.Sort, whose sort of int64s would add
	// code of its own to the runner, which has a size budget.
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	taken := make([]int64, 0, len(pick))
	for t := range pick {
		taken = append(taken, t)
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i] < taken[j] })
	ti := 0
	for _, k := range ks {
		// The free number of rank k is k plus the picked numbers at or
		// below it.
		x := k + int64(ti)
		for ti < len(taken) && taken[ti] <= x {
			ti++
			x = k + int64(ti)
		}
		pick[x] = true
	}
}

// pickTears picks up to m of the torn states (numbered from 0 after the
// prefix ones), each draw a (crash point, torn write) pair at random,
// then one of that write's tears: a tear per unit would spend a budget
// on the largest writes, as many states as they have units, when which
// write tears is what the filesystem notices (a journal block's
// checksum, a commit record). Draws that find nothing new stop after
// enough tries; the caller fills what is left at random.
func (s *Space) pickTears(m int64, rng *rand.Rand, pick map[int64]bool) {
	var pairs []int64 // before group k: the pairs of the groups before it
	var total int64
	for _, g := range s.groups {
		pairs = append(pairs, total)
		total += int64(len(g.torn))
	}
	if total == 0 {
		return
	}
	p := int64(len(s.Prefix))
	for tries := 0; int64(len(pick)) < m && tries < int(8*m)+64; tries++ {
		r := rng.Int64N(total)
		k := sort.Search(len(pairs), func(k int) bool { return pairs[k] > r }) - 1
		g := &s.groups[k]
		j := int(r - pairs[k])
		end := g.count
		if j+1 < len(g.tornFirst) {
			end = g.tornFirst[j+1]
		}
		if c := end - g.tornFirst[j]; c > 0 {
			pick[g.first-p+g.tornFirst[j]+rng.Int64N(c)] = true
		}
	}
}

// spread is k of the prefix states' numbers, evenly spread over them,
// the last included.
func (s *Space) spread(k int64) []int64 {
	p := int64(len(s.Prefix))
	out := make([]int64, 0, k)
	for i := int64(1); i <= k; i++ {
		out = append(out, (i*p)/k)
	}
	return out
}

// ordered is the chosen prefix states (their numbers) and the picked
// others, sorted for a replay that only goes forward.
func (s *Space) ordered(prefix []int64, pick map[int64]bool) []State {
	out := make([]State, 0, len(prefix)+len(pick))
	for _, n := range prefix {
		out = append(out, s.State(n))
	}
	p := int64(len(s.Prefix))
	for i := range pick {
		out = append(out, s.State(p+i+1))
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Applied < out[j].Applied || (out[i].Applied == out[j].Applied && out[i].N < out[j].N)
	})
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// String says what the state holds beyond its prefix: "reorder: lost
// #412 #420" or "torn: #412 kept 1110 (units of 512 bytes)"; bit i is unit i.
func (b *Beyond) String() string {
	if b == nil {
		return ModelPrefix
	}
	s := b.Model + ":"
	if b.Torn < 0 {
		s += " lost"
		for _, i := range b.Drop {
			s += " #" + itoa(i)
		}
		return s
	}
	mask := make([]byte, b.Units)
	for u := range mask {
		mask[u] = '0' + byte(b.Keep[u/64]>>(u%64)&1)
	}
	return s + " #" + itoa(b.Torn) + " kept " + string(mask) + " (units of " + itoa(int(b.Unit)) + " bytes)"
}

// String names the model with its settings.
func (d Device) String() string {
	if d.Model != ModelReorder && d.Model != ModelTorn {
		return ModelPrefix
	}
	s := d.Model
	if d.Model == ModelReorder {
		s += ", every subset dropping up to " + itoa(d.Drop) + " unflushed writes"
	} else {
		s += " in units of " + itoa(int(d.Tear)) + " bytes"
	}
	s += ", " + itoa(d.Samples) + " random beyond per "
	if d.Model == ModelReorder {
		s += "crash point"
	} else {
		s += "write"
	}
	if d.IgnoreFlush {
		s += ", flushes ignored, write-back "
		if d.Writeback > 0 {
			s += "every " + itoa(d.Writeback) + " writes"
		} else {
			s += "never"
		}
	}
	return s + ", seed " + itoa(int(d.Seed))
}
