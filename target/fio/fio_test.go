//go:build linux

package fio

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite "+fixture+" with the fio on this machine")

const fixture = "testdata/fio-json-plus.json"

// needFio skips a test, with the same message everywhere, when fio is not
// installed.
func needFio(t *testing.T) string {
	t.Helper()
	p := testenv.Tool(t, "fio")
	return p
}

// The same small jobs through fio and the built-in engine: the same files,
// the same bytes, I/Os and fsyncs, and results that parse and are
// plausible.
func TestAgainstFio(t *testing.T) {
	needFio(t)
	for _, tc := range []struct {
		job      Job
		sameMix  bool // per-direction bytes and fsyncs equal (no random mix)
		direct   bool
		checkCPU bool
	}{
		{job: Job{RW: RWWrite, IOEngine: IOEngineSync, BS: 4096, Size: 3*200*4096 + 100, NrFiles: 3, Fsync: 5, EndFsync: true},
			sameMix: true, checkCPU: true},
		{job: Job{RW: RWMixed, IOEngine: IOEnginePsync, BS: 4096, Size: 3*40*4096 + 3000, NrFiles: 3, RWMixRead: 60}},
		{job: Job{RW: RWRandMixed, IOEngine: IOEnginePsync, BS: 8192, Size: 2*32*8192 + 123, NrFiles: 2, NumJobs: 2,
			RWMixRead: 70, Fsync: 4, EndFsync: true}},
		{job: Job{RW: RWRandRead, IOEngine: IOEngineLibaio, IODepth: 8, BS: 4096, Size: 256 * 4096, Direct: true},
			sameMix: true, direct: true},
	} {
		j := tc.job
		j.Name = j.RW + "-" + j.IOEngine
		j.Dir = t.TempDir()
		if tc.direct {
			j.Dir = diskDir(t)
		}
		t.Run(j.Name, func(t *testing.T) {
			var res [2]*Result
			for i, engine := range []string{EngineFio, EngineBuiltin} {
				rec := newRecorder(t, j)
				r, err := run(context.Background(), j, Options{Engine: engine, DropCaches: func() error { return nil }}, rec.hooks())
				skipNoDirect(t, err)
				if err != nil && tc.direct && strings.Contains(err.Error(), "O_DIRECT") {
					t.Skipf("fio cannot use O_DIRECT under /var/tmp: %v", err)
				}
				if err != nil {
					t.Fatalf("%s: %v", engine, err)
				}
				if !rec.laidOut {
					t.Fatalf("%s: no layout", engine)
				}
				checkPlausible(t, engine, &j, r, tc.checkCPU)
				res[i] = r
			}
			f, b := res[0], res[1]
			if f.Read.Bytes+f.Write.Bytes != b.Read.Bytes+b.Write.Bytes {
				t.Errorf("fio moved %d+%d bytes, the built-in engine %d+%d", f.Read.Bytes, f.Write.Bytes, b.Read.Bytes, b.Write.Bytes)
			}
			if tc.sameMix && (f.Read.counts() != b.Read.counts() || f.Write.counts() != b.Write.counts() || f.Sync.IOs != b.Sync.IOs) {
				t.Errorf("fio: read %d/%d write %d/%d sync %d; built-in: read %d/%d write %d/%d sync %d (bytes/I/Os)",
					f.Read.Bytes, f.Read.IOs, f.Write.Bytes, f.Write.IOs, f.Sync.IOs,
					b.Read.Bytes, b.Read.IOs, b.Write.Bytes, b.Write.IOs, b.Sync.IOs)
			}
			if j.Fsync > 0 && (f.Sync.IOs == 0) != (b.Sync.IOs == 0) {
				t.Errorf("fsyncs: fio %d, built-in %d", f.Sync.IOs, b.Sync.IOs)
			}
		})
	}
}

// counts are the bytes and I/Os of s, to compare with another engine's.
func (s Side) counts() [2]int64 { return [2]int64{s.Bytes, s.IOs} }

func checkPlausible(t *testing.T, engine string, j *Job, r *Result, cpu bool) {
	t.Helper()
	if r.Engine != engine || r.IOEngine != j.IOEngine || r.Version == "" {
		t.Errorf("%s: engine %q ioengine %q version %q", engine, r.Engine, r.IOEngine, r.Version)
	}
	if engine == EngineFio && !strings.HasPrefix(r.Version, "fio-") {
		t.Errorf("fio version %q", r.Version)
	}
	for _, s := range []*Side{&r.Read, &r.Write} {
		if s.Bytes == 0 {
			continue
		}
		if s.IOs <= 0 || s.BW <= 0 || s.IOPS <= 0 || s.RuntimeMS <= 0 {
			t.Errorf("%s: bytes %d, I/Os %d, bw %d KiB/s, %v IO/s, runtime %d ms", engine, s.Bytes, s.IOs, s.BW, s.IOPS, s.RuntimeMS)
		}
		if s.Clat.N != s.IOs || s.Clat.Mean <= 0 || s.Clat.Max < s.Clat.Mean || s.Lat.Mean < s.Clat.Mean {
			t.Errorf("%s: clat %+v lat mean %v", engine, s.Clat, s.Lat.Mean)
		}
		if len(s.Clat.Percentiles) != len(Percentiles) ||
			!slices.IsSortedFunc(s.Clat.Percentiles, func(a, b Percentile) int { return cmp.Compare(a.Value, b.Value) }) {
			t.Errorf("%s: percentiles %v", engine, s.Clat.Percentiles)
		}
		if j.IOEngine == IOEngineLibaio && s.Slat.N != s.IOs {
			t.Errorf("%s: %d submission latencies for %d I/Os", engine, s.Slat.N, s.IOs)
		}
	}
	// CPU time is a share of the run time, per job. The kernel charges it
	// by the tick, so a job of a few milliseconds can be charged a whole
	// tick or two more than it ran (fio then prints 300%): the bound allows
	// that much and no more.
	runMS := float64(max(r.Read.RuntimeMS, r.Write.RuntimeMS, 1))
	cpuMS := (r.UsrCPU + r.SysCPU) * runMS / 100
	if r.UsrCPU < 0 || r.SysCPU < 0 || cpuMS > runMS*float64(max(j.NumJobs, 1))+cpuTickSlackMS ||
		(cpu && r.UsrCPU+r.SysCPU == 0) {
		t.Errorf("%s: CPU usr %v%% sys %v%% over %v ms", engine, r.UsrCPU, r.SysCPU, runMS)
	}
}

// cpuTickSlackMS is how much CPU time beyond the run time a short job may
// be charged: two ticks at the slowest common HZ (100).
const cpuTickSlackMS = 20

// fio's JSON (json+, which adds the histogram bins): it parses, and the
// percentiles computed from fio's own bins with this package's buckets are
// fio's percentiles.
func TestFioJSON(t *testing.T) {
	if *update {
		path := needFio(t)
		j, err := Job{Name: "fixture", Dir: t.TempDir(), RW: RWRandMixed, BS: 4096, Size: 2 << 20, RWMixRead: 70, Fsync: 8}.normalized()
		if err != nil {
			t.Fatal(err)
		}
		args := append((&realFio{job: &j}).args(), "--output-format=json+")
		out, err := runFio(context.Background(), path, args...)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixture, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	// fio can print notes before the document.
	r, err := parseFioJSON(append([]byte("fio: note: something\n"), out...))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Version, "fio-") || r.Read.Bytes+r.Write.Bytes != 2<<20 || r.Sync.IOs == 0 ||
		r.Read.BW <= 0 || r.Write.IOPS <= 0 || r.Read.RuntimeMS <= 0 {
		t.Fatalf("parsed %+v", r)
	}
	type clat struct {
		Clat struct {
			N    uint64            `json:"N"`
			Bins map[string]uint64 `json:"bins"`
		} `json:"clat_ns"`
	}
	var raw struct {
		Jobs []struct {
			Read  clat `json:"read"`
			Write clat `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"read", "write"} {
		c := raw.Jobs[0].Read.Clat
		if dir == "write" {
			c = raw.Jobs[0].Write.Clat
		}
		var hist [platN]uint64
		for k, n := range c.Bins {
			var v uint64
			if err := json.Unmarshal([]byte(k), &v); err != nil {
				t.Fatal(err)
			}
			idx := platIndex(v)
			if platValue(idx) != v {
				t.Fatalf("fio's bin %d is not the middle of a bucket here (%d)", v, platValue(idx))
			}
			hist[idx] += n
		}
		got := percentiles(&hist, c.N)
		side := r.Read
		if dir == "write" {
			side = r.Write
		}
		if !slices.Equal(got, side.Clat.Percentiles) || len(got) != len(Percentiles) {
			t.Errorf("%s: percentiles from fio's bins %v, fio's own %v", dir, got, side.Clat.Percentiles)
		}
	}
}

func TestFioErrors(t *testing.T) {
	if _, err := parseFioJSON([]byte("fio: engine libaio not loadable\n")); err == nil {
		t.Error("no error for output without JSON")
	}
	if _, err := parseFioJSON([]byte(`{"fio version": "fio-3.33", "jobs": [{"error": 5}]}`)); err == nil ||
		!strings.Contains(err.Error(), "input/output error") {
		t.Errorf("failed job: %v", err)
	}
	path := needFio(t)
	j, _ := Job{Name: "e", Dir: t.TempDir(), RW: RWRead, BS: 4096, Size: 1 << 20, IOEngine: "nosuchengine"}.normalized()
	if _, err := newRealFio(context.Background(), path, &j); err == nil || !strings.Contains(err.Error(), "no ioengine nosuchengine") {
		t.Errorf("unknown ioengine: %v", err)
	}
	// A fio that is asked for explicitly and missing is an error, not the
	// built-in engine.
	_, err := Run(context.Background(), Job{Name: "m", Dir: t.TempDir(), RW: RWRead, BS: 4096, Size: 1 << 20},
		Options{Engine: EngineFio, FioPath: filepath.Join(t.TempDir(), "fio")})
	if err == nil || !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing fio: %v", err)
	}
}
