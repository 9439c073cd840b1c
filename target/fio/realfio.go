package fio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// realFio runs a job with the fio binary at path.
type realFio struct {
	path    string
	job     *Job
	version string
}

// newRealFio checks that the fio at path runs and has the job's ioengine.
func newRealFio(ctx context.Context, path string, job *Job) (*realFio, error) {
	out, err := runFio(ctx, path, "--version")
	if err != nil {
		return nil, err
	}
	f := &realFio{path: path, job: job, version: strings.TrimSpace(string(out))}
	help, err := runFio(ctx, path, "--enghelp")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(strings.Fields(string(help)), job.IOEngine) {
		return nil, fmt.Errorf("%s (%s) has no ioengine %s (fio --enghelp): use the built-in engine or a fio built with it",
			path, f.version, job.IOEngine)
	}
	return f, nil
}

// args is the job as fio's command line: one job, its clones reported as
// one (group_reporting), everything else at fio's defaults.
func (f *realFio) args() []string {
	j := f.job
	a := []string{
		"--output-format=json",
		"--name=" + j.Name,
		// fio splits directory at ':'; a backslash keeps one in the path.
		"--directory=" + strings.ReplaceAll(j.Dir, ":", `\:`),
		"--rw=" + j.RW,
		"--bs=" + strconv.FormatInt(j.BS, 10),
		"--size=" + strconv.FormatInt(j.Size, 10),
		"--nrfiles=" + strconv.Itoa(j.NrFiles),
		"--numjobs=" + strconv.Itoa(j.NumJobs),
		"--ioengine=" + j.IOEngine,
		"--iodepth=" + strconv.Itoa(j.IODepth),
		"--direct=" + boolArg(j.Direct),
	}
	if j.mixed() {
		a = append(a, "--rwmixread="+strconv.Itoa(j.RWMixRead))
	}
	if j.Runtime > 0 {
		a = append(a, "--runtime="+usecArg(j.Runtime))
	}
	if j.TimeBased {
		a = append(a, "--time_based=1")
	}
	if j.RampTime > 0 {
		a = append(a, "--ramp_time="+usecArg(j.RampTime))
	}
	if j.Fsync > 0 {
		a = append(a, "--fsync="+strconv.Itoa(j.Fsync))
	}
	if j.EndFsync {
		a = append(a, "--end_fsync=1")
	}
	if j.IOSize > 0 {
		a = append(a, "--io_size="+strconv.FormatInt(j.IOSize, 10))
	}
	return append(a, "--group_reporting=1")
}

func boolArg(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func usecArg(d time.Duration) string {
	return strconv.FormatInt(d.Microseconds(), 10) + "us"
}

// layout lets fio create the files (create_only), so that the measured run
// starts with them in place, as the built-in engine's does.
func (f *realFio) layout(ctx context.Context) error {
	_, err := runFio(ctx, f.path, append(f.args(), "--create_only=1")...)
	return err
}

func (f *realFio) run(ctx context.Context) (*Result, error) {
	out, err := runFio(ctx, f.path, f.args()...)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, err
	}
	r, err := parseFioJSON(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	r.Engine, r.IOEngine = EngineFio, f.job.IOEngine
	if r.Version == "" {
		r.Version = f.version
	}
	return r, nil
}

// runFio runs fio and returns its standard output; on failure the error
// carries the end of its standard error. Cancelling ctx sends fio SIGINT,
// on which it stops its jobs and exits; SIGKILL follows 10 s later.
func runFio(ctx context.Context, path string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return nil, fmt.Errorf("%s %s: %w: %s", path, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// fioOutput is the part of fio's JSON output a Result needs.
type fioOutput struct {
	Version string `json:"fio version"`
	Jobs    []struct {
		Error  int          `json:"error"`
		Read   fioDirection `json:"read"`
		Write  fioDirection `json:"write"`
		Sync   fioSync      `json:"sync"`
		UsrCPU float64      `json:"usr_cpu"`
		SysCPU float64      `json:"sys_cpu"`
		Ctx    int64        `json:"ctx"`
	} `json:"jobs"`
}

type fioDirection struct {
	IOBytes  int64   `json:"io_bytes"`
	BW       int64   `json:"bw"`
	IOPS     float64 `json:"iops"`
	Runtime  int64   `json:"runtime"`
	TotalIOs int64   `json:"total_ios"`
	Slat     fioLat  `json:"slat_ns"`
	Clat     fioLat  `json:"clat_ns"`
	Lat      fioLat  `json:"lat_ns"`
}

type fioSync struct {
	TotalIOs int64  `json:"total_ios"`
	Lat      fioLat `json:"lat_ns"`
}

type fioLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	Stddev     float64            `json:"stddev"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// parseFioJSON reads fio's --output-format=json. fio may print notes
// before the JSON document, so parsing starts at the first '{' that begins
// a line. With group_reporting there is one job; more are refused rather
// than summed differently from fio.
func parseFioJSON(out []byte) (*Result, error) {
	start := bytes.Index(out, []byte("\n{"))
	switch {
	case bytes.HasPrefix(out, []byte("{")):
		start = 0
	case start >= 0:
		start++
	default:
		return nil, errors.New("no JSON document in fio's output")
	}
	var o fioOutput
	if err := json.Unmarshal(out[start:], &o); err != nil {
		return nil, fmt.Errorf("fio's JSON output: %w", err)
	}
	if len(o.Jobs) != 1 {
		return nil, fmt.Errorf("fio's JSON output has %d jobs, want 1 (group_reporting)", len(o.Jobs))
	}
	j := o.Jobs[0]
	if j.Error != 0 {
		return nil, fmt.Errorf("fio's job failed with error %d (%s)", j.Error, syscall.Errno(j.Error))
	}
	r := &Result{
		Version: o.Version,
		Read:    j.Read.side(),
		Write:   j.Write.side(),
		Sync:    SyncSide{IOs: j.Sync.TotalIOs, Lat: j.Sync.Lat.latency()},
		UsrCPU:  j.UsrCPU,
		SysCPU:  j.SysCPU,
		Ctx:     j.Ctx,
	}
	return r, nil
}

func (d *fioDirection) side() Side {
	return Side{
		Bytes:     d.IOBytes,
		IOs:       d.TotalIOs,
		BW:        d.BW,
		IOPS:      d.IOPS,
		RuntimeMS: d.Runtime,
		Slat:      d.Slat.latency(),
		Clat:      d.Clat.latency(),
		Lat:       d.Lat.latency(),
	}
}

// latency converts nanoseconds to microseconds; fio prints percentile keys
// as "%f" ("99.500000").
func (l *fioLat) latency() Latency {
	if l.N == 0 {
		return Latency{}
	}
	out := Latency{N: l.N, Min: l.Min / 1e3, Max: l.Max / 1e3, Mean: l.Mean / 1e3, Stddev: l.Stddev / 1e3}
	for k, v := range l.Percentile {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil {
			continue
		}
		out.Percentiles = append(out.Percentiles, Percentile{P: p, Value: v / 1e3})
	}
	sort.Slice(out.Percentiles, func(i, j int) bool { return out.Percentiles[i].P < out.Percentiles[j].P })
	return out
}
