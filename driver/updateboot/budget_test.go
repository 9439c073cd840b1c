package updateboot

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/fsbench/fsbench/wire/runplan"
)

// TestBudgetKeepsEachClass: over the budget, the first state of each
// class is kept and the rest spread, in the listed order; within it,
// every state.
func TestBudgetKeepsEachClass(t *testing.T) {
	var judged []runplan.BootJudgement
	for i := range 100 {
		class := "Bricked"
		switch {
		case i < 4:
			class = "OldSlot"
		case i == 97:
			class = "Fallback"
		}
		judged = append(judged, runplan.BootJudgement{State: fmt.Sprint(i + 1), Class: class})
	}
	if got := budget(judged, 0); len(got) != 100 {
		t.Errorf("no budget kept %d of 100", len(got))
	}
	if got := budget(judged[:8], 10); len(got) != 8 {
		t.Errorf("8 states under a budget of 10: %d kept", len(got))
	}
	got := budget(judged, 10)
	classes := map[string]bool{}
	for i, j := range got {
		classes[j.Class] = true
		if i > 0 && atoi(j.State) <= atoi(got[i-1].State) {
			t.Errorf("state %s kept after %s", j.State, got[i-1].State)
		}
	}
	if len(got) != 10 || !classes["OldSlot"] || !classes["Bricked"] || !classes["Fallback"] {
		t.Errorf("kept %d states of classes %v", len(got), classes)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
