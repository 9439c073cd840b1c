package recipes

import (
	"fmt"
	"math"
	"strconv"
)

// crashPerOp is, per operation of a workload, the crash points (flushes
// and FUA writes) and the writes a campaign showed on ext4 in QEMU
// (docs/reliability.md): what the plan's estimate of a case's states
// rests on. Other filesystems flush more or less often; the runner
// reports the real count.
var crashPerOp = map[string]struct{ points, writes float64 }{
	"fsync": {3.3, 7}, "rename": {5.2, 12}, "sqlite": {8.4, 20},
	"small_files": {3.3, 9}, "churn": {3.3, 8}, "large_file": {3.5, 40},
}

// crashEstimate is how many states a case's device model gives for its
// workload's size, estimated, and what max_states keeps of them.
func crashEstimate(p Params) string {
	workload, _ := stringParam(p, "workload")
	device, flush := caseWord(p, "device", "prefix"), caseWord(p, "flush", "honoured")
	ops, _ := intParam(p, "operations")
	drop, _ := intParam(p, "drop")
	samples, _ := intParam(p, "samples")
	tear, _ := intParam(p, "tear")
	writeback, _ := intParam(p, "writeback")
	maxStates, _ := intParam(p, "max_states")
	c, ok := crashPerOp[workload]
	if !ok || ops <= 0 {
		return ""
	}
	points := math.Ceil(c.points * float64(ops))
	if boolParam(p, "at_marks") {
		points += float64(ops)
	}
	writes := c.writes * float64(ops)
	// unflushed is the writes a crash point's window holds: those since
	// the last flush, or with flushes ignored, since the last write-back.
	unflushed := func(i float64) float64 {
		switch {
		case flush != "ignored":
			return math.Max(1, math.Round(writes/points))
		case writeback > 0:
			return math.Min(float64(writeback)/2, writes*i/points)
		}
		return math.Round(writes * i / points)
	}
	extra := 0.0
	for i := 1.0; i <= points; i++ {
		n := unflushed(i)
		switch device {
		case "reorder":
			for j := 1; j <= int(drop); j++ {
				extra += binomialF(n, float64(j))
			}
			if n > float64(drop) {
				extra += float64(samples)
			}
		case "torn":
			// Each unflushed write and the point's own may tear; a 4KiB
			// write has 4096/tear units.
			u := math.Max(1, math.Floor(4096/float64(tear)))
			per := 2 * (u - 1)
			if u >= 4 {
				per += float64(samples)
			}
			extra += (n + 1) * per
		}
	}
	total := points + extra
	s := fmt.Sprintf("about %s states (%s crash points", count(total), count(points))
	if device != "prefix" {
		s += fmt.Sprintf(", %s unflushed writes at the last", count(unflushed(points)))
	}
	s += ")"
	switch {
	case total <= float64(maxStates):
		return s + "; max_states keeps them all"
	case device == "prefix" && points >= float64(maxStates):
		return s + fmt.Sprintf("; max_states %d: the prefix states evenly spread", maxStates)
	case points > float64(maxStates/2) && maxStates > 1: // as logwrites' Space.Choose splits it
		return s + fmt.Sprintf("; max_states %d: about %d prefix states evenly spread, then the others at random", maxStates, maxStates/2)
	}
	return s + fmt.Sprintf("; max_states %d: the %s prefix states, then the others at random", maxStates, count(points))
}

func binomialF(n, k float64) float64 {
	if k > n {
		return 0
	}
	c := 1.0
	for i := 1.0; i <= k; i++ {
		c = c * (n - k + i) / i
	}
	return c
}

// count writes an estimate to two significant digits.
func count(x float64) string {
	if x < 100 {
		return strconv.Itoa(int(math.Round(x)))
	}
	mag := math.Pow(10, math.Floor(math.Log10(x))-1)
	return strconv.FormatFloat(math.Round(x/mag)*mag, 'f', 0, 64)
}
