package runplan

import (
	"reflect"
	"testing"
)

// TestBootJudgementsRoundTrip: judgements read back as written, and a
// malformed word is refused.
func TestBootJudgementsRoundTrip(t *testing.T) {
	in := []BootJudgement{{"412", "OldSlot", 0, "A", 3}, {"500+520~510:512:8:f", "Bricked", -1, "", 0}, {"7+9-8", "Fallback", -1, "B", 2}}
	attr := ""
	for _, j := range in {
		attr += j.String() + " "
	}
	got, err := ParseBootJudgements(attr)
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Fatalf("%q read back as %+v (%v)", attr, got, err)
	}
	for _, bad := range []string{"412", "412=OldSlot", "412=OldSlot,2,A,3", "412=OldSlot,0,C,3", "412=OldSlot,0,A,x", "=OldSlot,0,A,3"} {
		if j, err := ParseBootJudgements(bad); err == nil {
			t.Errorf("%q read as %+v", bad, j)
		}
	}
}
