package logwrites_test

import (
	"bytes"
	"strings"

	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/logwrites/logwritestest"
)

// TestChooseEveryStateWhenTheyFit: a budget that holds every state of a
// model chooses every one of them, the model's and the prefix's, each
// once, in replay order.
func TestChooseEveryStateWhenTheyFit(t *testing.T) {
	l := openLog(t, windowed())
	s := l.Space(points, logwrites.Device{Model: logwrites.ModelReorder, Drop: 1, Samples: 3, IgnoreFlush: true, Seed: 5})
	chosen, rule := s.Choose(int(s.Total))
	if int64(len(chosen)) != s.Total || rule != "every state" {
		t.Fatalf("a budget of all %d states chose %d (%s)", s.Total, len(chosen), rule)
	}
	seen := map[int]bool{}
	for i, c := range chosen {
		if seen[c.N] {
			t.Errorf("state %d chosen twice", c.N)
		}
		seen[c.N] = true
		if i > 0 && c.Applied < chosen[i-1].Applied {
			t.Errorf("state %d replays backwards", c.N)
		}
	}
}

// TestChooseTearsSpreadOverWrites: under the torn model a budget is
// spread over the writes that may tear, not over their units: a large
// data write has hundreds of tears and the small journal-like writes a
// few each, and a sample of states by unit would be nearly all the
// large write's. Each chosen state is once, and the rule says so.
func TestChooseTearsSpreadOverWrites(t *testing.T) {
	b := &logwritestest.Builder{SectorSize: 512}
	b.Write(0, 'M', 2, 0)
	b.Flush()
	b.Mark(logwrites.FSMark)
	b.Write(64, 'D', 512, 0) // 3: a 256 KiB data write
	for i := range 6 {       // 4..9: 4 KiB blocks
		b.Write(uint64(8+8*i), byte('a'+i), 8, 0)
	}
	b.Write(56, 'C', 8, logwrites.FlagFlush|logwrites.FlagFUA) // 10
	b.Mark(logwrites.EndMark)
	raw := b.Bytes()
	l, err := logwrites.Open(bytes.NewReader(raw), int64(len(raw)), 1024*512)
	if err != nil {
		t.Fatal(err)
	}
	s := l.Space(logwrites.Points{Flush: true, FUA: true, From: 3}, logwrites.Device{Model: logwrites.ModelTorn, Tear: 512, IgnoreFlush: true, Seed: 3})
	chosen, rule := s.Choose(41)
	if len(chosen) != 41 || !strings.Contains(rule, "each (crash point, torn write) as likely") {
		t.Fatalf("%d chosen: %s", len(chosen), rule)
	}
	byWrite := map[int]int{}
	seen := map[int]bool{}
	for _, c := range chosen {
		if seen[c.N] {
			t.Errorf("state %d chosen twice", c.N)
		}
		seen[c.N] = true
		if c.Beyond != nil {
			byWrite[c.Beyond.Torn]++
		}
	}
	// 8 writes may tear; the large one has 1022 of the 1120 states.
	if byWrite[3] > 15 || len(byWrite) < 6 {
		t.Errorf("tears chosen by write %v: the large write took the budget", byWrite)
	}
	// A budget of all but one: the draws find most, the rest is filled
	// with the states they missed, each once.
	most, _ := s.Choose(int(s.Total) - 1)
	seen = map[int]bool{}
	for _, c := range most {
		if seen[c.N] || c.N < 1 || int64(c.N) > s.Total {
			t.Errorf("state %d chosen twice or out of range", c.N)
		}
		seen[c.N] = true
	}
	if int64(len(seen)) != s.Total-1 {
		t.Errorf("%d distinct states chosen, want %d", len(seen), s.Total-1)
	}
}
