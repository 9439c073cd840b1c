// Package fio is the target-side runner's fio recipe: it runs one fio job
// with the real fio when the image has it, and otherwise with a built-in
// engine that follows fio's semantics and reports in fio's units, so that a
// result means the same whichever engine produced it.
//
// The built-in engine mirrors fio 3.33 with default options where they
// matter for the numbers: file layout (read jobs write their files first,
// untimed; write jobs fallocate them), file names <name>.<jobnum>.<filenum>,
// per-file sizes (size/nrfiles, whole blocks only), round-robin file
// service, random offsets that visit every block once per pass, rwmixread,
// fsync every N writes and end_fsync, numjobs, time_based, runtime,
// ramp_time and io_size, the psync, sync and libaio ioengines, completion
// latency histograms with fio's buckets and percentiles, and CPU use from
// getrusage(RUSAGE_THREAD).
//
// It runs inside the static runner (CGO_ENABLED=0), so it must never import
// anything but the standard library, golang.org/x/sys/unix and
// fsbench/resultframe: no HCL, no cty, no host-side package. It must never
// run a shell: fio is started with an argument vector.
package fio
