package logwrites_test

import (
	"slices"
	"testing"

	"github.com/fsbench/fsbench/wire/logwrites"
)

// TestStateCodeRoundTrip: every state of the reorder and torn models of
// a log reads back from its code with the same bytes to write: the same
// prefix, last entry, dropped entries and torn units.
func TestStateCodeRoundTrip(t *testing.T) {
	l := openLog(t, windowed())
	for _, d := range []logwrites.Device{
		{Model: logwrites.ModelReorder, Drop: 2, Samples: 2, IgnoreFlush: true, Seed: 3},
		{Model: logwrites.ModelTorn, Tear: 512, Samples: 3, IgnoreFlush: true, Seed: 3},
	} {
		s := l.Space(points, d)
		for n := int64(1); n <= s.Total; n++ {
			st := s.State(n)
			got, err := logwrites.ParseState(st.Code(), len(l.Entries))
			if err != nil {
				t.Fatalf("%s: %v", st.Code(), err)
			}
			if got.Applied != st.Applied || (got.Beyond == nil) != (st.Beyond == nil) {
				t.Fatalf("%s read back as %+v", st.Code(), got)
			}
			if b, g := st.Beyond, got.Beyond; b != nil && (g.Upto != b.Upto || !slices.Equal(g.Drop, b.Drop) || g.Torn != b.Torn ||
				!slices.Equal(g.Keep, b.Keep) || g.Unit != b.Unit || g.Units != b.Units || g.Model != b.Model) {
				t.Fatalf("%s read back as %+v, want %+v", st.Code(), g, b)
			}
		}
	}
}

// TestParseStateRefusesWhatNoLogHolds: a code naming entries outside the
// log, or malformed, is refused, never rebuilt as another state.
func TestParseStateRefusesWhatNoLogHolds(t *testing.T) {
	for _, code := range []string{"", "0", "15", "x", "3+2", "3+20", "3+6-7", "3+6-2", "3+6~9:512:1:1", "3+6~4:512:2", "3+6~4:0:2:3",
		"3+6~4:512:2:zz", "3+6~4:512:65:1", "3+6-"} {
		if st, err := logwrites.ParseState(code, 14); err == nil {
			t.Errorf("%q read as %+v", code, st)
		}
	}
	if st, err := logwrites.ParseState("3+6-4.5", 14); err != nil || st.Beyond.Model != logwrites.ModelReorder || !slices.Equal(st.Beyond.Drop, []int{4, 5}) {
		t.Errorf("3+6-4.5: %+v %v", st, err)
	}
}
