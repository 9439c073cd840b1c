package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/report/svg"
)

// What the verdict says around its rankings: how to read them, the
// weights it used, what the table's figures are, and what an emulated
// target's figures mean.

// Intro introduces the verdict and says which weights it used.
func (v *Answer) Intro() string {
	return "Per criterion, each test case ranks the candidates into significance groups, best first: " +
		"\"a ≈ b\" means these results cannot tell a from b, \"a > b\" that a is significantly better (Welch's t-test " +
		"on the means, Fisher's exact test on the shares of good outcomes, 5%), with the difference from the leader of " +
		"the group before and its p-value; a candidate whose runs of a case failed comes last in it, with the reason. " +
		"The table gives each candidate's group per criterion (1st = in the best group; a range when its cases differ; " +
		"\"failed\" when runs failed) and its overall place: the mean group over the criteria (lower is better), " +
		v.weightsText() + "."
}

// weightsText says which weights the overall place used, and where
// they come from.
func (v *Answer) weightsText() string {
	var named []string
	fromSpec := false
	for _, cr := range v.Criteria {
		fromSpec = fromSpec || cr.FromSpec
		if cr.Weight != 1 || cr.FromSpec {
			named = append(named, cr.Name+" ×"+strconv.FormatFloat(cr.Weight, 'g', -1, 64))
		}
	}
	s := "weighted by the report's default weights (a spec's verdict block sets others: fsbench report -spec SPEC)"
	if fromSpec {
		s = "weighted as the spec's verdict block says, and by the report's defaults where it names no weight"
	}
	if len(named) == 0 {
		return s + ": every criterion ×1"
	}
	return s + ": " + strings.Join(named, ", ") + ", every other criterion ×1"
}

// figure is what the table shows beside a candidate's place in
// criterion cr, from its rankings rks: the mean projected years of its
// first lifetime case, or the share of its outcomes on the axis cr.Share
// in the bad classes, over all cases. "" when neither applies.
func figure(cr WeightedCriterion, rks []*Ranking, variant string) string {
	bad, total := 0, 0
	for _, rk := range rks {
		for _, g := range rk.Groups {
			for _, e := range g {
				if e.Variant != variant {
					continue
				}
				switch {
				case cr.Lifetime && rk.Unit == "B":
					return sizeText(e.Value) + " a day"
				case cr.Lifetime:
					return svg.Num(e.Value) + " " + rk.Unit
				case rk.Outcome && rk.Metric == cr.Share:
					bad, total = bad+e.N-e.good, total+e.N
				}
			}
		}
	}
	if total == 0 {
		return ""
	}
	return pct(100*float64(bad)/float64(total)) + " (" + strconv.Itoa(bad) + "/" + strconv.Itoa(total) + ")"
}

// figuresText says what the table's figures are, for the criteria of
// context c that show one.
func (v *Answer) figuresText(c *Context) string {
	var out []string
	for i, cr := range v.Criteria {
		if !slices.ContainsFunc(v.Places, func(p *Place) bool { return p.Context == c && p.Figures[i] != "" }) {
			continue
		}
		switch {
		case cr.Lifetime:
			out = append(out, cr.Name+": the years until the flash's mean erase block reaches its rated P/E cycles "+
				"(ideal wear leveling), the flash model's projection from each run's bytes a day, with the assumptions listed "+
				"per candidate under Lifetime; where no lifetime could be projected, the bytes to the device a day")
		case cr.Share != "":
			out = append(out, cr.Name+": the share of "+cr.Share+" outcomes that are "+strings.Join(cr.Bad, " or ")+
				" (states, cuts or faults whose synced data was lost or damaged)")
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "Beside the places: " + strings.Join(out, "; ") + "."
}

// emulatedNote says what the figures of a QEMU context mean and do not
// mean; "" for a board's context.
func emulatedNote(c *Context) string {
	if c.Value("target") != "qemu" {
		return ""
	}
	cpu := "a virtual machine"
	switch c.Value("accel") {
	case "tcg":
		cpu = "an emulated CPU (QEMU's TCG)"
	case "kvm":
		cpu = "a virtual CPU (QEMU under KVM)"
	}
	disk := "a virtual disk"
	if d := c.Value("disk"); d != "" {
		disk += " (" + d + ")"
	}
	return "Emulated target: these figures come from " + cpu + " and " + disk + " backed by the host's page " +
		"cache, not from any flash. They compare what the filesystems themselves cost (CPU, bytes and flushes sent, " +
		"the states a power cut leaves) under the same conditions; they are not the speed, boot time or wear of a " +
		"board's eMMC or SD card: run the spec on the board for those."
}
