package storageinfo

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// synthetic makes timings for boundary sizes 32 KiB to 64 MiB: reads of
// base µs, a read across a boundary of size S costing diff(S) µs more,
// each timing with Gaussian noise of sigma µs.
func synthetic(seed uint64, base, sigma float64, diff func(align int64) float64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 7))
	us := func(v float64) time.Duration { return time.Duration((v + sigma*rng.NormFloat64()) * 1e3) }
	var out []Sample
	for a := int64(32 << 10); a <= 64<<20; a *= 2 {
		s := Sample{Align: a}
		for range 7 {
			s.Pre = append(s.Pre, us(base))
			s.On = append(s.On, us(base+diff(a)))
			s.Post = append(s.Post, us(base))
		}
		out = append(out, s)
	}
	return out
}

func stepAt(at int64, below, above float64) func(int64) float64 {
	return func(a int64) float64 {
		if a >= at {
			return above
		}
		return below
	}
}

func TestAnalyzeClearStep(t *testing.T) {
	e := Analyze(synthetic(1, 700, 3, stepAt(4<<20, 150, 300)), AnalysisConfig{})
	if !e.Found || e.EraseBlock != 4<<20 || e.ConfidenceLevel() != "high" {
		t.Fatalf("%+v, want 4 MiB with high confidence", e)
	}
	if len(e.Boundaries) != 1 || e.Step < 140*time.Microsecond || e.Step > 160*time.Microsecond {
		t.Errorf("boundaries %v, step %v", e.Boundaries, e.Step)
	}
}

// flashbench's README prints the averages of a real card's `flashbench -a
// --blocksize=1024` run (bradfa/flashbench, README, commit d783b1b):
// steps at 8 and 16 KiB (its pages) and at 4 MiB, which the README reads
// as the erase block. Analysis of those numbers must read it the same way.
func TestAnalyzeFlashbenchREADME(t *testing.T) {
	rows := []struct {
		align         int64
		pre, on, post float64 // µs
	}{
		{2 << 10, 787, 793, 789}, {4 << 10, 784, 788, 779}, {8 << 10, 785, 808, 725},
		{16 << 10, 745, 911, 781}, {32 << 10, 735, 925, 800}, {64 << 10, 735, 925, 796},
		{128 << 10, 737, 935, 804}, {256 << 10, 746, 948, 809}, {512 << 10, 743, 936, 799},
		{1 << 20, 745, 945, 807}, {2 << 20, 745, 950, 811}, {4 << 20, 741, 1080, 788},
		{8 << 20, 724, 1040, 768}, {16 << 20, 727, 1050, 772}, {32 << 20, 722, 1040, 763},
		{64 << 20, 736, 1050, 763}, {128 << 20, 735, 1080, 780},
	}
	var samples []Sample
	for _, r := range rows {
		s := Sample{Align: r.align}
		for range 7 { // the README gives averages only: every position alike
			s.Pre = append(s.Pre, time.Duration(r.pre*1e3))
			s.On = append(s.On, time.Duration(r.on*1e3))
			s.Post = append(s.Post, time.Duration(r.post*1e3))
		}
		samples = append(samples, s)
	}
	e := Analyze(samples, AnalysisConfig{})
	if !e.Found || e.EraseBlock != 4<<20 {
		t.Fatalf("%+v, want 4 MiB as the README concludes", e)
	}
}

func TestAnalyzeFlatNoise(t *testing.T) {
	for seed := range uint64(20) {
		e := Analyze(synthetic(seed, 700, 10, stepAt(0, 0, 0)), AnalysisConfig{})
		if e.Found || !strings.Contains(e.Reason, "no lasting step") {
			t.Fatalf("seed %d: %+v, want no boundary", seed, e)
		}
	}
}

func TestAnalyzeNoisyStep(t *testing.T) {
	clear := Analyze(synthetic(3, 700, 3, stepAt(4<<20, 150, 300)), AnalysisConfig{})
	noisy := Analyze(synthetic(3, 700, 25, stepAt(4<<20, 150, 300)), AnalysisConfig{})
	if !noisy.Found || noisy.EraseBlock != 4<<20 {
		t.Fatalf("noisy step: %+v, want 4 MiB", noisy)
	}
	if noisy.Confidence >= clear.Confidence || noisy.Confidence <= 0 {
		t.Errorf("confidence %v for the noisy step, %v for the clear one", noisy.Confidence, clear.Confidence)
	}
	if drowned := Analyze(synthetic(3, 700, 400, stepAt(4<<20, 150, 300)), AnalysisConfig{}); drowned.Found {
		t.Errorf("a step drowned in noise found: %+v", drowned)
	}
}

// Steps the analysis must not take for an erase block.
func TestAnalyzeRejects(t *testing.T) {
	pageStep := Analyze(synthetic(4, 700, 3, stepAt(64<<10, 0, 300)), AnalysisConfig{MinEraseBlock: 128 << 10})
	if pageStep.Found {
		t.Errorf("a step below the smallest erase block taken: %+v", pageStep)
	}
	for name, samples := range map[string][]Sample{
		// only the largest size is slower: one point is no plateau
		"last size only": synthetic(4, 700, 3, stepAt(64<<20, 0, 300)),
		// a step that does not last
		"spike": synthetic(4, 700, 3, func(a int64) float64 {
			if a == 4<<20 {
				return 300
			}
			return 0
		}),
		"too few sizes": synthetic(4, 700, 3, stepAt(0, 0, 0))[:2],
	} {
		if e := Analyze(samples, AnalysisConfig{}); e.Found || e.Reason == "" {
			t.Errorf("%s: %+v", name, e)
		}
	}
}

// fakeFlash is a device whose reads cost 500 µs, and 300 µs more when they
// cross a multiple of its 4 MiB erase block, on a clock of its own.
type fakeFlash struct {
	now time.Duration
	rng *rand.Rand
}

func (f *fakeFlash) ReadAt(p []byte, off int64) (int, error) {
	cost := 500*time.Microsecond + time.Duration(f.rng.IntN(20))*time.Microsecond
	if off/(4<<20) != (off+int64(len(p))-1)/(4<<20) {
		cost += 300 * time.Microsecond
	}
	f.now += cost
	return len(p), nil
}

func TestMeasureFindsFakeFlashBlock(t *testing.T) {
	dev := &fakeFlash{rng: rand.New(rand.NewPCG(5, 5))}
	samples, err := Measure(context.Background(), dev, 256<<20, ProbeConfig{MaxAlign: 32 << 20, Tries: 2, Clock: func() time.Duration { return dev.now }})
	if err != nil {
		t.Fatal(err)
	}
	if first, last := samples[0].Align, samples[len(samples)-1].Align; first != 32<<10 || last != 32<<20 {
		t.Errorf("sizes %d to %d, want 32 KiB to 32 MiB", first, last)
	}
	if e := Analyze(samples, AnalysisConfig{}); !e.Found || e.EraseBlock != 4<<20 {
		t.Errorf("%+v, want 4 MiB", e)
	}
}

// A plain file has no erase blocks: measured for real, it gets no estimate.
func TestMeasurePlainFile(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "disk.img"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(8 << 20); err != nil {
		t.Fatal(err)
	}
	samples, err := Measure(context.Background(), f, 8<<20, ProbeConfig{Tries: 4})
	if err != nil {
		t.Fatal(err)
	}
	if e := Analyze(samples, AnalysisConfig{}); e.Found {
		t.Errorf("a plain file has an erase block of %d: %+v", e.EraseBlock, e)
	}
}

// Probe opens with O_DIRECT; on a filesystem that allows it, a plain file
// runs through the whole path and gets no estimate either.
func TestProbeFileWithODirect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 8<<20); err != nil {
		t.Fatal(err)
	}
	e, samples, err := Probe(context.Background(), path, ProbeConfig{Tries: 2})
	if errors.Is(err, syscall.EINVAL) {
		t.Skip("the test directory's filesystem refuses O_DIRECT")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) == 0 || e.Found {
		t.Errorf("%d sizes, estimate %+v", len(samples), e)
	}
}

func TestMeasureRefuses(t *testing.T) {
	dev := &fakeFlash{rng: rand.New(rand.NewPCG(1, 1))}
	if _, err := Measure(context.Background(), dev, 64<<10, ProbeConfig{}); err == nil {
		t.Error("probed a 64 KiB device with 16 KiB reads")
	}
	if _, err := Measure(context.Background(), dev, 1<<30, ProbeConfig{BlockSize: 3000}); err == nil {
		t.Error("accepted a block size that is not a power of two")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, dev, 1<<30, ProbeConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
