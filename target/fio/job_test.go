package fio

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// fio's setup_files: size/nrfiles each, whole blocks left over go to the
// first files one block each; partial blocks stay in the files but are
// never used.
func TestFileSizes(t *testing.T) {
	for _, tc := range []struct {
		size, bs int64
		nrfiles  int
		want     []int64
		blocks   int64
	}{
		{size: 1 << 20, bs: 4096, nrfiles: 1, want: []int64{1 << 20}, blocks: 256},
		{size: 1 << 20, bs: 4096, nrfiles: 4, want: []int64{1 << 18, 1 << 18, 1 << 18, 1 << 18}, blocks: 256},
		// 10 MiB over 3 files of 4 MiB blocks: 3.33 MiB each, not one block.
		{size: 10 << 20, bs: 4 << 20, nrfiles: 3, want: []int64{3495253, 3495253, 3495253}, blocks: 0},
		{size: 10 << 20, bs: 4096, nrfiles: 3, want: []int64{3495253, 3495253, 3495253}, blocks: 3 * 853},
		// Leftover of 5 bytes with bs 2: two files get a block more.
		{size: 32, bs: 2, nrfiles: 9, want: []int64{5, 5, 3, 3, 3, 3, 3, 3, 3}, blocks: 2*2 + 7*1},
	} {
		j := Job{Size: tc.size, BS: tc.bs, NrFiles: tc.nrfiles}
		got := j.fileSizes()
		if !slices.Equal(got, tc.want) {
			t.Errorf("size %d bs %d nrfiles %d: sizes %v, want %v", tc.size, tc.bs, tc.nrfiles, got, tc.want)
		}
		if b := totalBlocks(got, tc.bs); b != tc.blocks {
			t.Errorf("size %d bs %d nrfiles %d: %d blocks, want %d", tc.size, tc.bs, tc.nrfiles, b, tc.blocks)
		}
	}
}

func TestFilePath(t *testing.T) {
	j := Job{Name: "randread-4KiB-direct", Dir: "/mnt/data"}
	if got, want := j.filePath(1, 2), "/mnt/data/randread-4KiB-direct.1.2"; got != want {
		t.Fatalf("file path %q, want fio's %q", got, want)
	}
}

func TestJobChecks(t *testing.T) {
	good := Job{Name: "j", Dir: "/tmp/x", RW: RWRandRead, BS: 4096, Size: 1 << 20}
	if _, err := good.normalized(); err != nil {
		t.Fatalf("good job refused: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Name = "" }, "empty name"},
		{func(j *Job) { j.Name = "a/b" }, "cannot be part of a file name"},
		{func(j *Job) { j.Dir = "" }, "no directory"},
		{func(j *Job) { j.RW = "randtrim" }, `rw "randtrim"`},
		{func(j *Job) { j.IOEngine = "io_uring" }, `ioengine "io_uring"`},
		{func(j *Job) { j.BS = 0 }, "bs 0 is not positive"},
		{func(j *Job) { j.Direct, j.BS = true, 1000 }, "multiple of 512"},
		{func(j *Job) { j.Size = 100 }, "fio would do no I/O"},
		{func(j *Job) { j.NrFiles, j.BS, j.Size = 3, 4<<20, 10<<20 }, "each of the 3 files gets 3495253 bytes"},
		{func(j *Job) { j.RWMixRead = 101 }, "not a percentage"},
		{func(j *Job) { j.TimeBased = true }, "time_based needs a runtime"},
		{func(j *Job) { j.RampTime = -time.Second }, "cannot be negative"},
		{func(j *Job) { j.IODepth = -1 }, "cannot be negative"},
	} {
		j := good
		tc.edit(&j)
		_, err := j.normalized()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", j, err, tc.want)
		}
	}
}

func TestFioArgs(t *testing.T) {
	j, err := Job{
		Name: "mix", Dir: "/mnt/a:b", RW: RWRandMixed, BS: 4096, Direct: true, Size: 1 << 20,
		NrFiles: 2, NumJobs: 3, IOEngine: IOEngineLibaio, IODepth: 8, RWMixRead: 70,
		Runtime: 1500 * time.Millisecond, TimeBased: true, RampTime: 250 * time.Millisecond,
		Fsync: 16, EndFsync: true, IOSize: 4 << 20,
	}.normalized()
	if err != nil {
		t.Fatal(err)
	}
	got := (&realFio{job: &j}).args()
	want := []string{
		"--output-format=json", "--name=mix", `--directory=/mnt/a\:b`, "--rw=randrw", "--bs=4096",
		"--size=1048576", "--nrfiles=2", "--numjobs=3", "--ioengine=libaio", "--iodepth=8", "--direct=1",
		"--rwmixread=70", "--runtime=1500000us", "--time_based=1", "--ramp_time=250000us", "--fsync=16",
		"--end_fsync=1", "--io_size=4194304", "--group_reporting=1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("fio arguments\n got %q\nwant %q", got, want)
	}
	// Defaults leave fio's own defaults alone.
	j, _ = Job{Name: "r", Dir: "/d", RW: RWRead, BS: 4096, Size: 1 << 20}.normalized()
	got = (&realFio{job: &j}).args()
	want = []string{
		"--output-format=json", "--name=r", "--directory=/d", "--rw=read", "--bs=4096", "--size=1048576",
		"--nrfiles=1", "--numjobs=1", "--ioengine=psync", "--iodepth=1", "--direct=0", "--group_reporting=1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("fio arguments\n got %q\nwant %q", got, want)
	}
}
