package fio

import (
	"strings"
	"testing"

	"github.com/fsbench/fsbench/wire/resultframe"
)

func TestMetrics(t *testing.T) {
	pct := make([]Percentile, len(Percentiles))
	for i, p := range Percentiles {
		pct[i] = Percentile{P: p, Value: p}
	}
	r := &Result{
		Engine: EngineBuiltin, Version: BuiltinVersion, IOEngine: IOEngineLibaio,
		Read: Side{Bytes: 8192, IOs: 2, BW: 4, IOPS: 0.5, RuntimeMS: 4000,
			Clat: Latency{N: 2, Mean: 10, Percentiles: pct}, Slat: Latency{N: 2, Mean: 1}},
		Write:  Side{Bytes: 4096, IOs: 1, BW: 1, IOPS: 0.25, RuntimeMS: 4000, Clat: Latency{N: 1, Percentiles: pct}},
		Sync:   SyncSide{IOs: 3, Lat: Latency{N: 3, Mean: 100}},
		UsrCPU: 1.5, SysCPU: 20,
		Kthreads: &KthreadCPU{WallMS: 2000, Ticks: 50, ByName: []NamedTicks{{"jbd2", 20}, {"kworker", 30}}},
	}
	ms := r.Metrics()
	got := map[string]resultframe.Metric{}
	for _, m := range ms {
		if _, dup := got[m.Name]; dup {
			t.Fatalf("metric %q twice", m.Name)
		}
		got[m.Name] = m
	}
	for name, want := range map[string]resultframe.Metric{
		"read_bw":               {Value: 4, Unit: "KiB/s"},
		"write_iops":            {Value: 0.25, Unit: "IO/s"},
		"read_clat_p99":         {Value: 99, Unit: "us"},
		"read_clat_p99_95":      {Value: 99.95, Unit: "us"},
		"write_clat_p1":         {Value: 1, Unit: "us"},
		"read_slat_mean":        {Value: 1, Unit: "us"},
		"read_runtime":          {Value: 4000, Unit: "ms"},
		"sync_ios":              {Value: 3},
		"usr_cpu":               {Value: 1.5, Unit: "%"},
		"sys_cpu":               {Value: 20, Unit: "%"},
		"kthread_cpu":           {Value: 25, Unit: "%"}, // 0.5 s of CPU in 2 s
		"kthread_ticks.kworker": {Value: 30, Unit: "ticks"},
	} {
		m, ok := got[name]
		if !ok || m.Value != want.Value || m.Unit != want.Unit {
			t.Errorf("metric %s = %+v (present %v), want %v %q", name, m, ok, want.Value, want.Unit)
		}
	}
	if _, ok := got["write_slat_mean"]; ok {
		t.Error("write_slat_mean without submission latencies")
	}
	if n := len(ms); n != 2*(11+len(Percentiles))-1+2+3+2+2 {
		t.Errorf("%d metrics", n)
	}
	// The result frame accepts them.
	if _, err := resultframe.Encode(resultframe.Result{RunID: "r", Seq: 1, Status: resultframe.StatusOK, Metrics: ms}); err != nil {
		t.Fatal(err)
	}
	// A read job has no write metrics.
	r.Write = Side{}
	for _, m := range r.Metrics() {
		if strings.HasPrefix(m.Name, "write_") {
			t.Fatalf("read job with metric %s", m.Name)
		}
	}
}
