package crash

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// TestBootSlot: RAUC's U-Boot script boots the first slot of BOOT_ORDER
// with attempts left; none left, or words it does not know, boot nothing;
// what is unset has the script's defaults.
func TestBootSlot(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want int
	}{
		{map[string]string{"BOOT_ORDER": "A B", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}, 0},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}, 1},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "0"}, 0},
		{map[string]string{"BOOT_ORDER": "B", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "0"}, -1},
		{map[string]string{"BOOT_ORDER": "A B", "BOOT_A_LEFT": "x", "BOOT_B_LEFT": "1"}, 1},
		{map[string]string{"BOOT_ORDER": "C", "BOOT_C_LEFT": "3"}, -1},
		{map[string]string{}, 0},
		{map[string]string{"BOOT_ORDER": "B", "BOOT_A_LEFT": "0"}, 1},
		{map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "0", "BOOT_B_LEFT": "0"}, -1},
	} {
		if got, _, why := bootSlot(c.vars); got != c.want {
			t.Errorf("%v: slot %d (%s), want %d", c.vars, got, why, c.want)
		}
	}
}

// TestUpdaterStepsFromMarks: the updater's lines become one-word marks
// outside the workload's prefix, and each count of entries knows the
// last line before it.
func TestUpdaterStepsFromMarks(t *testing.T) {
	m := updaterMark("  installing rootfs.img\tto B \x00 " + strings.Repeat("x", 300))
	if strings.ContainsAny(m, " \t\x00") || !strings.HasPrefix(m, UpdaterMark+"installing_rootfs.img_to_B") || len(m) > len(UpdaterMark)+200 || strings.HasPrefix(m, markPrefix) {
		t.Errorf("mark %q", m)
	}
	steps := updaterSteps([]string{"", updaterMark("writing slot"), markPrefix + "s:f:4096", "", updaterMark("done")})
	want := []string{"", "", "writing slot", "writing slot", "writing slot", "done"}
	if !slices.Equal(steps, want) {
		t.Errorf("steps %q, want %q", steps, want)
	}
}

// TestBootAttempts: a slot holding neither image spends its attempts and
// the next slot of BOOT_ORDER boots; none left but mixed ones is no boot;
// a bootloader that never spends an attempt boots the mixed slot forever.
func TestBootAttempts(t *testing.T) {
	images := func(a, b string) func(int) (string, error) {
		return func(slot int) (string, error) { return []string{a, b}[slot], nil }
	}
	flipped := map[string]string{"BOOT_ORDER": "B A", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}
	for _, c := range []struct {
		name       string
		vars       map[string]string
		decrements bool
		a, b       string
		slot, left int
		failed     string
		loop       bool
	}{
		{"whole new slot", flipped, true, imageOld, imageNew, 1, 3, "", false},
		{"mixed new slot falls back", flipped, true, imageOld, imageMixed, 0, 3, "B", false},
		{"both mixed", flipped, true, imageMixed, imageMixed, -1, 0, "BA", false},
		{"mixed, no other slot in the order", map[string]string{"BOOT_ORDER": "B", "BOOT_B_LEFT": "2"}, true, imageOld, imageMixed, -1, 0, "B", false},
		{"never decrements", flipped, false, imageOld, imageMixed, 1, 3, "", true},
		{"never decrements, whole slot", flipped, false, imageOld, imageNew, 1, 3, "", false},
	} {
		l, err := bootAttempts(c.vars, c.decrements, images(c.a, c.b))
		if err != nil {
			t.Fatal(err)
		}
		if l.slot != c.slot || (l.slot >= 0 && l.left != c.left) || l.failed != c.failed || l.loop != c.loop {
			t.Errorf("%s: slot %d, %d left, failed %q, loop %v (%s); want slot %d, %d left, failed %q, loop %v",
				c.name, l.slot, l.left, l.failed, l.loop, l.why, c.slot, c.left, c.failed, c.loop)
		}
	}
	if flipped["BOOT_B_LEFT"] != "3" {
		t.Errorf("the judgement spent the state's own attempts: %v", flipped)
	}
}

// TestRegionCache: a slot's comparison is made once per last write into
// it; a state whose writes beyond its prefix reach the slot is compared
// afresh, one whose beyond writes miss it is not.
func TestRegionCache(t *testing.T) {
	b := &logwritestest.Builder{SectorSize: 512}
	b.Entry(0, 8, 0, "", make([]byte, 8*512)) // 0: slot A
	b.Flush()                                 // 1
	b.Entry(8, 8, 0, "", make([]byte, 8*512)) // 2: slot B
	b.Flush()                                 // 3
	b.Entry(16, 1, 0, "", make([]byte, 512))  // 4: neither
	b.Entry(12, 1, 0, "", make([]byte, 512))  // 5: slot B
	b.Flush()                                 // 6
	b.Mark(logwrites.EndMark)                 // 7
	raw := b.Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 17*512)
	if err != nil {
		t.Fatal(err)
	}
	c := newRegionCache(l, &updRegion{off: 0, size: 8 * 512}, &updRegion{off: 8 * 512, size: 8 * 512}, &updRegion{off: 16 * 512, size: 512})
	compares := 0
	compare := func() (string, error) { compares++; return imageOld, nil }
	for _, s := range []struct {
		st         logwrites.State
		slot, want int // compares after it
	}{
		{logwrites.State{Applied: 2}, 0, 1},
		{logwrites.State{Applied: 4}, 0, 1},                                     // slot A unchanged
		{logwrites.State{Applied: 7}, 0, 1},                                     //
		{logwrites.State{Applied: 4}, 1, 2},                                     // slot B after entry 2
		{logwrites.State{Applied: 5}, 1, 2},                                     // entry 4 misses it
		{logwrites.State{Applied: 4, Beyond: &logwrites.Beyond{Upto: 5}}, 1, 2}, // beyond writes miss it
		{logwrites.State{Applied: 4, Beyond: &logwrites.Beyond{Upto: 6}}, 1, 3}, // entry 5 beyond: compared
		{logwrites.State{Applied: 7}, 1, 4},                                     // after entry 5
		{logwrites.State{Applied: 7}, 1, 4},
	} {
		if _, err := c.get(s.st, s.slot, func() (any, error) { return compare() }); err != nil {
			t.Fatal(err)
		}
		if compares != s.want {
			t.Fatalf("state %+v slot %d: %d comparisons, want %d", s.st, s.slot, compares, s.want)
		}
	}
}
