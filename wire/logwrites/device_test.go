package logwrites_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// windowed is a workload after mkfs: two writes and a commit that
// flushes them (FUA, 4 sectors), the workload's mark, a write that only
// the recorder's flush orders before the next mark, and a last commit.
func windowed() *logwritestest.Builder {
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'M', 2, 0)                                     // 0
	b.Flush()                                                 // 1
	b.Mark(logwrites.FSMark)                                  // 2
	b.Write(4, 'a', 1, 0)                                     // 3
	b.Write(5, 'b', 2, 0)                                     // 4
	b.Write(8, 'c', 4, logwrites.FlagFlush|logwrites.FlagFUA) // 5
	b.Mark("fsb:s:f:1")                                       // 6
	b.Mark(logwrites.OrderMark)                               // 7
	b.Write(12, 'd', 1, 0)                                    // 8
	b.Flush()                                                 // 9: the recorder's
	b.Mark("fsb:s:f:2")                                       // 10
	b.Write(13, 'e', 1, 0)                                    // 11
	b.Write(8, 'C', 4, logwrites.FlagFlush|logwrites.FlagFUA) // 12
	b.Mark(logwrites.EndMark)                                 // 13
	return b
}

func openLog(t *testing.T, b *logwritestest.Builder) *logwrites.Log {
	t.Helper()
	raw := b.Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 32*512)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var points = logwrites.Points{Flush: true, FUA: true, Marks: true, From: 3}

// describe writes a state as "applied+upto-drop~torn:keep".
func describe(s logwrites.State) string {
	b := s.Beyond
	if b == nil {
		return fmt.Sprint(s.Applied)
	}
	d := fmt.Sprintf("%d..%d", s.Applied, b.Upto)
	if len(b.Drop) > 0 {
		d += fmt.Sprintf("-%v", b.Drop)
	}
	if b.Torn >= 0 {
		d += fmt.Sprintf("~%d:%b", b.Torn, b.Keep[0])
	}
	return d
}

func all(s *logwrites.Space) string {
	var out []string
	for n := int64(1); n <= s.Total; n++ {
		st := s.State(n)
		if st.N != int(n) {
			t := fmt.Sprintf("state %d numbered %d", n, st.N)
			panic(t)
		}
		out = append(out, describe(st))
	}
	return strings.Join(out, " ")
}

// The recorder's flush and its mark are no crash points.
func TestOrderingFlushIsNoPoint(t *testing.T) {
	l := openLog(t, windowed())
	var got []string
	for _, s := range l.States(points) {
		got = append(got, fmt.Sprintf("%d:%s", s.Applied, s.Point))
	}
	if want := "6:fua 7:mark 11:mark 13:fua"; strings.Join(got, " ") != want {
		t.Errorf("points %v, want %s", got, want)
	}
}

// Reordering that drops nothing is the prefix model: the same states.
func TestReorderDropZeroIsPrefix(t *testing.T) {
	l := openLog(t, windowed())
	for _, ignore := range []bool{false, true} {
		s := l.Space(points, logwrites.Device{Model: logwrites.ModelReorder, IgnoreFlush: ignore})
		prefix := l.States(points)
		if s.Total != int64(len(prefix)) {
			t.Fatalf("ignore %v: %d states, want the %d prefixes", ignore, s.Total, len(prefix))
		}
		for i, p := range prefix {
			if st := s.State(int64(i + 1)); st.Applied != p.Applied || st.Point != p.Point || st.Beyond != nil {
				t.Errorf("state %d: %+v, want %+v", i+1, st, p)
			}
		}
	}
}

// An honoured flush closes the window: each commit's states drop its
// unflushed writes, and lack the commit's own data. A device that
// ignores flushes keeps every write since the filesystem's creation
// unflushed; its write-back closes the window.
func TestReorderWindows(t *testing.T) {
	l := openLog(t, windowed())
	cases := []struct {
		d    logwrites.Device
		want string
	}{
		{logwrites.Device{Model: logwrites.ModelReorder, Drop: 1},
			"6 7 11 13 3..5-[3] 3..5-[4] 6..11-[8] 6..12-[8] 6..12-[11]"},
		{logwrites.Device{Model: logwrites.ModelReorder, Drop: 2},
			"6 7 11 13 3..5-[3] 3..5-[4] 3..5-[3 4] 6..11-[8] 6..12-[8] 6..12-[11] 6..12-[8 11]"},
		{logwrites.Device{Model: logwrites.ModelReorder, Drop: 1, IgnoreFlush: true},
			"6 7 11 13 3..6-[3] 3..6-[4] 3..6-[5] 3..7-[3] 3..7-[4] 3..7-[5] " +
				"3..11-[3] 3..11-[4] 3..11-[5] 3..11-[8] 3..13-[3] 3..13-[4] 3..13-[5] 3..13-[8] 3..13-[11] 3..13-[12]"},
		{logwrites.Device{Model: logwrites.ModelReorder, Drop: 1, IgnoreFlush: true, Writeback: 4},
			"6 7 11 13 3..6-[3] 3..6-[4] 3..6-[5] 3..7-[3] 3..7-[4] 3..7-[5] 9..13-[11] 9..13-[12]"},
	}
	for _, c := range cases {
		s := l.Space(points, c.d)
		if got := all(s); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.d, got, c.want)
		}
	}
}

// A torn write keeps a prefix or a suffix of its units, then random
// subsets; its unflushed neighbours persist whole.
func TestTornStates(t *testing.T) {
	l := openLog(t, windowed())
	d := logwrites.Device{Model: logwrites.ModelTorn, Tear: 1024, Samples: 1, Seed: 7}
	s := l.Space(points, d)
	// Point 6 (the commit at 5): 3 (1 sector: no tear) and 4 (2 sectors,
	// one unit) are unflushed, and the commit itself has 4 sectors: 2
	// units, whose every tear is a prefix or a suffix. The last commit
	// (12) the same, and 11 has one sector.
	want := "6 7 11 13 3..6~5:1 3..6~5:10 6..13~12:1 6..13~12:10"
	if got := all(s); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	d.Tear = 512
	s = l.Space(points, d)
	// 4: 2 units, 2 tears; 5: 4 units, 3 prefixes, 3 suffixes and one
	// random subset.
	var torn []string
	for n := int64(len(s.Prefix) + 1); n <= s.Total; n++ {
		if st := s.State(n); st.Applied == 3 {
			torn = append(torn, describe(st))
		}
	}
	if len(torn) != 2+7 || torn[0] != "3..5~4:1" || torn[1] != "3..5~4:10" || torn[2] != "3..6~5:1" || torn[7] != "3..6~5:1110" {
		t.Errorf("torn states of the first commit: %v", torn)
	}
	if again := l.Space(points, d); all(again) != all(s) {
		t.Error("the same seed gave other states")
	}
}

// A state beyond its prefix is written as the model says: dropped
// writes left out, a torn write's kept units only.
func TestBeyondWrites(t *testing.T) {
	l := openLog(t, windowed())
	check := func(d logwrites.Device, n int64, want string) {
		t.Helper()
		s := l.Space(points, d)
		st := s.State(n)
		dev := make(memDev, 32*512)
		r := logwrites.NewReplayer(l, dev)
		if err := r.To(st.Applied); err != nil {
			t.Fatal(err)
		}
		if err := r.Beyond(st, dev); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for i := 0; i < 16; i++ {
			c := dev[i*512]
			if c == 0 {
				c = '.'
			}
			got = append(got, c)
		}
		if string(got) != want {
			t.Errorf("%s: sectors %s, want %s", describe(st), got, want)
		}
	}
	// Ignored flushes, the first point's state without entry 4 (b).
	check(logwrites.Device{Model: logwrites.ModelReorder, Drop: 1, IgnoreFlush: true}, 6, "MM..a...cccc....")
	// The last commit torn after its first sector.
	check(logwrites.Device{Model: logwrites.ModelTorn, Tear: 512}, 13, "MM..abb.Ccccde..")
}

// Samples drop more writes than Drop, from the seed; the budget keeps
// the prefix states and picks the rest from the seed, in replay order.
func TestSamplesAndBudget(t *testing.T) {
	l := openLog(t, windowed())
	d := logwrites.Device{Model: logwrites.ModelReorder, Drop: 1, Samples: 3, IgnoreFlush: true, Seed: 5}
	s := l.Space(points, d)
	// Points 6, 7, 11, 13 have 3, 3, 4 and 6 unflushed writes.
	if s.Total != 4+(3+3)+(3+3)+(4+3)+(6+3) || s.Possible != 4+7+7+15+63 {
		t.Fatalf("%d states enumerated, %v possible", s.Total, s.Possible)
	}
	for n := int64(len(s.Prefix) + 1); n <= s.Total; n++ {
		if st := s.State(n); len(st.Beyond.Drop) < 1 {
			t.Errorf("state %d drops nothing", n)
		}
	}
	chosen, rule := s.Choose(10)
	if len(chosen) != 10 || !strings.Contains(rule, "the 4 prefix states, then 6 of the 28 others at random (seed 5)") {
		t.Fatalf("%d chosen: %s", len(chosen), rule)
	}
	prefix := 0
	for i, c := range chosen {
		if c.Beyond == nil {
			prefix++
		}
		if i > 0 && c.Applied < chosen[i-1].Applied {
			t.Errorf("state %d replays backwards", c.N)
		}
	}
	if prefix != 4 {
		t.Errorf("%d prefix states chosen, want all 4", prefix)
	}
	// A budget the prefix states would fill gives them half: the model's
	// states are what the campaign is for.
	few, rule := s.Choose(6)
	models := 0
	for _, c := range few {
		if c.Beyond != nil {
			models++
		}
	}
	if len(few) != 6 || models != 3 || !strings.Contains(rule, "3 of the 4 prefix states evenly spread, then 3 of the 28 others") {
		t.Errorf("a budget under twice the prefix states: %d states, %d of the model (%s)", len(few), models, rule)
	}
	// The prefix model has nothing else: the budget is the prefix's.
	prefixOnly := l.Space(points, logwrites.Device{Model: logwrites.ModelPrefix})
	if few, rule := prefixOnly.Choose(2); len(few) != 2 || few[1].Applied != 13 || !strings.Contains(rule, "2 of the 4 prefix states evenly spread") {
		t.Errorf("a budget under the prefix states: %v (%s)", few, rule)
	}
}
