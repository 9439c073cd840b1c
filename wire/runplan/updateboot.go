package runplan

import (
	"fmt"
	"strconv"
	"strings"
)

// The update test's result names the log it judged and the states its
// host boots for real through U-Boot: attribute UpdateLogDigest is the
// log's digest (logwrites.Log.Digest), which the host checks before it
// rebuilds a state from the log on the disk; UpdateBootStates lists
// BootJudgements, space-separated.
const (
	UpdateLogDigest  = "log_digest"
	UpdateBootStates = "boot_states"
)

// BootJudgement is how the runner judged a state would boot: the state
// (logwrites.State.Code), its boot class, the environment copy U-Boot
// reads (0, 1, or -1 for its default environment), the slot it boots
// ("A", "B", or "" for none) and that slot's attempts left before the
// boot spends one.
type BootJudgement struct {
	State string
	Class string
	Copy  int
	Slot  string
	Left  int
}

// String writes the judgement as one word: "412+420-417=NewSlot,1,B,3".
func (j BootJudgement) String() string {
	slot := j.Slot
	if slot == "" {
		slot = "-"
	}
	return fmt.Sprintf("%s=%s,%d,%s,%d", j.State, j.Class, j.Copy, slot, j.Left)
}

// ParseBootJudgements reads an UpdateBootStates attribute.
func ParseBootJudgements(attr string) ([]BootJudgement, error) {
	var out []BootJudgement
	for _, w := range strings.Fields(attr) {
		state, rest, ok := strings.Cut(w, "=")
		f := strings.Split(rest, ",")
		if !ok || state == "" || len(f) != 4 {
			return nil, fmt.Errorf("judged boot %q: want STATE=CLASS,COPY,SLOT,LEFT", w)
		}
		j := BootJudgement{State: state, Class: f[0], Slot: f[2]}
		var err1, err2 error
		j.Copy, err1 = strconv.Atoi(f[1])
		j.Left, err2 = strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || j.Copy < -1 || j.Copy > 1 || (j.Slot != "A" && j.Slot != "B" && j.Slot != "-") {
			return nil, fmt.Errorf("judged boot %q: the copy is -1, 0 or 1, the slot A, B or -, the attempts a number", w)
		}
		if j.Slot == "-" {
			j.Slot = ""
		}
		out = append(out, j)
	}
	return out, nil
}
