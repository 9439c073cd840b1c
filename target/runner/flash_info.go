package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/measure"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/target/storageinfo"
)

func init() {
	register("flash_info", step.Recipe{Schema: 1, Iterate: flashInfo})
}

// flashInfo reads what the storage under the partition says about itself
// and, unless told not to, probes its erase block with timed reads of the
// whole device. Every fact is a value with its source or "not available"
// with the reason (package storageinfo).
func flashInfo(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	probe, probeMax := e.P.Bool("probe"), e.P.Int("probe_max")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	in := storageinfo.Read("/sys", "/dev", linux.BlockName(e.Part.Device))
	metrics, attrs := in.Report()
	out := &step.Outcome{Set: measure.Set{Metrics: metrics, Attrs: attrs}}
	// What the report needs to say which tuning a measured geometry
	// would give.
	out.Attr("fstype", e.Part.FS)
	out.Attr("partition_bytes", strconv.FormatInt(e.Part.Size, 10))
	if e.Part.EraseBlock > 0 {
		out.Metric("spec_erase_block", float64(e.Part.EraseBlock), "bytes")
	} else {
		out.Attr("spec_erase_block", "none: the spec's filesystem has no geometry block")
	}
	if !probe {
		out.Attr("probe", "not run: probe = false")
		return out, nil
	}
	disk := filepath.Join("/dev", in.Disk)
	est, samples, err := storageinfo.Probe(ctx, disk, storageinfo.ProbeConfig{MaxAlign: probeMax})
	switch {
	case err != nil:
		out.Attr("probe", "not available: "+err.Error())
	case est.Found:
		out.Metric("probe_erase_block", float64(est.EraseBlock), "bytes")
		out.Attr("probe", fmt.Sprintf("a step of %s at %s boundaries (%s confidence, noise %s, %d sizes read)",
			est.Step, sizeText(est.EraseBlock), est.ConfidenceLevel(), est.Noise, len(samples)))
	default:
		out.Attr("probe", "no boundary found: "+est.Reason)
	}
	return out, nil
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
