package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/driver/updateboot"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/qemu"
	"github.com/fsbench/fsbench/wire/arch"
	"github.com/fsbench/fsbench/wire/resultframe"
	"github.com/fsbench/fsbench/wire/runplan"
)

// Attributes and metrics the real boots of an update test's states add
// to its result.
const (
	RealBoots         = "real_boots"          // boots run through U-Boot
	RealBootStates    = "real_boot_states"    // states they covered
	RealBootDisagreed = "real_boot_disagreed" // states that booted elsewhere than judged
	RealBootNote      = "real_boot"           // what was done, or why not
	RealBootFirstDiff = "real_boot_first_disagreement"
)

// realBoots boots, through U-Boot in QEMU, the states each update result
// of the run lists, on the disk the run left, and adds what they found
// to the results (in memory and in the results file). kernel is the
// x86_64 kernel the boots start; "" when the run had none to offer.
func realBoots(ctx context.Context, log logrus.FieldLogger, p *runplan.Plan, out *Outcome, disk, kernel, runDir string) error {
	if out.Summary == nil {
		return nil
	}
	changed := false
	for i := range out.Summary.Results {
		r := &out.Summary.Results[i]
		if r.Recipe != "update" || r.Status != resultframe.StatusOK || r.Attrs[runplan.UpdateBootStates] == "" {
			continue
		}
		changed = true
		note, err := realBootsOf(ctx, log, p, r, disk, kernel, runDir)
		if err != nil {
			note = "not run: " + err.Error()
			log.Warnf("update %s/%s: the real boots of its states: %v", r.Name, r.Case, err)
		}
		r.Attrs[RealBootNote] = note
	}
	if !changed {
		return nil
	}
	return rewriteResults(out.Results, out.Summary.Results)
}

// realBootsOf boots one result's states.
func realBootsOf(ctx context.Context, log logrus.FieldLogger, p *runplan.Plan, r *resultframe.Result, disk, kernel, runDir string) (string, error) {
	if p.Board.Arch != arch.X86_64 || kernel == "" {
		return "", fmt.Errorf("states boot for real on x86_64 variants run with a direct boot, which gives the kernel (this one: %s)", p.Board.Arch)
	}
	var step *runplan.Step
	for i, s := range p.Steps {
		if s.Recipe == r.Recipe && s.Test == r.Name && s.Case == r.Case {
			step = &p.Steps[i]
		}
	}
	if step == nil {
		return "", fmt.Errorf("the plan has no step %s/%s", r.Name, r.Case)
	}
	fw, err := qemu.UBootFirmware(arch.X86_64)
	if err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(runDir, "real-boots-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	log.Infof("update %s/%s: booting its judged states through U-Boot", r.Name, r.Case)
	o, err := updateboot.Check(ctx, updateboot.Case{Disk: disk, Plan: p, Step: *step, Result: *r, Kernel: kernel, Firmware: fw, Work: work, Log: log})
	if err != nil {
		return "", err
	}
	r.Metrics = append(r.Metrics,
		resultframe.Metric{Name: RealBoots, Value: float64(o.Boots), Unit: "boots"},
		resultframe.Metric{Name: RealBootStates, Value: float64(o.Agree + len(o.Disagree)), Unit: "states"},
		resultframe.Metric{Name: RealBootDisagreed, Value: float64(len(o.Disagree)), Unit: "states"})
	note := fmt.Sprintf("%d of %d judged states booted through U-Boot in QEMU (%d boots, one per distinct environment and slots); %d landed where judged",
		o.Agree+len(o.Disagree), o.Judged, o.Boots, o.Agree)
	if len(o.Disagree) > 0 {
		r.Attrs[RealBootFirstDiff] = o.Disagree[0]
		log.Errorf("update %s/%s: %d states booted elsewhere than judged; the first: %s", r.Name, r.Case, len(o.Disagree), o.Disagree[0])
	}
	log.Infof("update %s/%s: %s", r.Name, r.Case, note)
	return note, nil
}

// rewriteResults replaces the results file with rs, whole.
func rewriteResults(path string, rs []resultframe.Result) error {
	old, err := console.ReadResults(path)
	if err != nil {
		return err
	}
	byKey := map[string]resultframe.Result{}
	for _, r := range rs {
		byKey[fmt.Sprintf("%s/%d", r.RunID, r.Seq)] = r
	}
	var b strings.Builder
	for _, r := range old {
		if n, ok := byKey[fmt.Sprintf("%s/%d", r.RunID, r.Seq)]; ok {
			r = n
		}
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return atomicfile.WriteFile(path, []byte(b.String()), 0o644)
}
