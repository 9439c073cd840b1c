package logwrites_test

import (
	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
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
