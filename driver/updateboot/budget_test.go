package updateboot

import (
	"fmt"
	"strconv"
	"strings"
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

// TestEnvFileNamesArePlain: an environment file's name goes into the
// boot script as one word; a plan that names another is refused before
// any boot.
func TestEnvFileNamesArePlain(t *testing.T) {
	params := func(file string) runplan.Params {
		return runplan.Params{"image_size": int64(65536), "env_offset": int64(0), "env_size": int64(0x4000), "snapshot_size": int64(1 << 20),
			"env_redundant": true, "bootloader_decrements": true, "env_file": file, "env_file_redund": "uboot-redund.env"}
	}
	for _, bad := range []string{"uboot.env; reset", "../uboot.env", "a b", "x\nboot"} {
		if _, err := readLayout(Case{Step: runplan.Step{Params: params(bad)}}, nil); err == nil || !strings.Contains(err.Error(), "not a plain path") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
