package capture

import (
	"fmt"
	"regexp"
	"time"
)

// Milestone is a named boot event recognised by a pattern. Patterns are
// matched anywhere in the ANSI-stripped line (see StripANSI), on complete
// lines and on partial ones, so that a prompt without newline counts.
type Milestone struct {
	Name    string
	Pattern *regexp.Regexp
}

// Names of the default milestones.
const (
	RootMount = "root-mount"
	InitStart = "init-start"
	Prompt    = "prompt"
)

// DefaultMilestones returns the root mount, init start and shell prompt
// patterns of a Linux boot. The prompt pattern is anchored at the end of the
// line: busybox prints "# " and waits, with no newline after it.
func DefaultMilestones() []Milestone {
	return []Milestone{
		{RootMount, regexp.MustCompile(`Mounted root`)},
		{InitStart, regexp.MustCompile(`Run /sbin/init|Freeing unused kernel`)},
		{Prompt, regexp.MustCompile(`[#$] $`)},
	}
}

// Hit is the first occurrence of a milestone.
type Hit struct {
	Name string
	Time time.Time     // Start of the matching line
	Abs  time.Duration // Time relative to the time base in force then
	Line string        // the ANSI-stripped line (as far as received)
}

// Interval is the time from milestone from to milestone to. It fails when
// either was not seen; it may be negative when they came in reverse order.
func (r *Result) Interval(from, to string) (time.Duration, error) {
	a, ok := r.Milestone(from)
	if !ok {
		return 0, fmt.Errorf("capture: milestone %q not seen", from)
	}
	b, ok := r.Milestone(to)
	if !ok {
		return 0, fmt.Errorf("capture: milestone %q not seen", to)
	}
	return b.Time.Sub(a.Time), nil
}

// Milestone returns the hit recorded for name.
func (r *Result) Milestone(name string) (Hit, bool) {
	for _, h := range r.Milestones {
		if h.Name == name {
			return h, true
		}
	}
	return Hit{}, false
}

// ansi matches CSI sequences (colours, cursor moves), OSC sequences
// (terminal titles, ended by BEL or ST) and the other two-byte ESC
// sequences (charset selection, save/restore cursor).
var ansi = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])`)

// StripANSI removes terminal escape sequences. It is only ever applied to a
// copy used for matching, never to captured bytes.
func StripANSI(s string) string { return ansi.ReplaceAllString(s, "") }
