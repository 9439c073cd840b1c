package fio

import "testing"

// Every block once per pass, as fio's random map guarantees.
func TestBlockOrderIsPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 4, 5, 63, 64, 65, 1000, 4097, 65539} {
		for seed := range uint64(3) {
			o := newBlockOrder(n, seed)
			seen := make([]bool, n)
			fixed := 0
			for i := range n {
				b := o.at(i)
				if b >= n {
					t.Fatalf("n %d seed %d: block %d out of range", n, seed, b)
				}
				if seen[b] {
					t.Fatalf("n %d seed %d: block %d twice", n, seed, b)
				}
				seen[b] = true
				if b == i {
					fixed++
				}
			}
			// A random permutation has one fixed point on average.
			if n >= 64 && fixed > 8 {
				t.Errorf("n %d seed %d: %d blocks in place, not shuffled", n, seed, fixed)
			}
		}
	}
}

func TestBlockOrderDependsOnSeed(t *testing.T) {
	a, b := newBlockOrder(1000, seedFor("job", 0, 0, 0)), newBlockOrder(1000, seedFor("job", 0, 0, 1))
	same := 0
	for i := range uint64(1000) {
		if a.at(i) == b.at(i) {
			same++
		}
	}
	if same > 20 {
		t.Fatalf("two passes share %d of 1000 positions", same)
	}
	c := newBlockOrder(1000, seedFor("job", 0, 0, 0))
	for i := range uint64(1000) {
		if a.at(i) != c.at(i) {
			t.Fatalf("same seed, different order at %d", i)
		}
	}
}
