package main

import (
	"fmt"
	"io"
)

// report is the benchmark's result: per tool the medians over the runs,
// and every run's figures.
type report struct {
	Load        int          `json:"load"`
	Runs        int          `json:"runs"`
	Lines       int          `json:"lines"`
	Bytes       int          `json:"bytes"`
	Baud        int          `json:"baud"`
	Fifo        int          `json:"fifo"`
	TimeScale   float64      `json:"timescale"`
	PlaySeconds float64      `json:"play_s"`
	Interval    float64      `json:"interval_s"` // root mount to prompt, as sent
	Tools       []toolReport `json:"tools"`
}

type toolReport struct {
	Name    string    `json:"name"`
	Median  figures   `json:"median"`
	Hangups int       `json:"hangups"`
	Runs    []figures `json:"runs"`
}

func newReport(o options, s *setup, results map[string][]figures) *report {
	last := s.chunks[len(s.chunks)-1]
	perByte := 10 / float64(o.baud)
	rep := &report{
		Load: o.load, Runs: o.runs, Lines: len(s.log.lines), Bytes: len(s.log.data),
		Baud: o.baud, Fifo: o.fifo, TimeScale: o.scale,
		PlaySeconds: last.at.Seconds() + float64(last.end-last.off)*perByte,
		Interval:    (s.chunks[s.lineChunk[s.prompt]].at - s.chunks[s.lineChunk[s.ref]].at).Seconds(),
	}
	for _, t := range s.tools {
		runs := results[t.name]
		tr := toolReport{Name: t.name, Runs: runs, Median: figures{
			Median:    medianOf(runs, func(f figures) float64 { return f.Median }),
			P99:       medianOf(runs, func(f figures) float64 { return f.P99 }),
			Max:       medianOf(runs, func(f figures) float64 { return f.Max }),
			Interval:  medianOf(runs, func(f figures) float64 { return f.Interval }),
			LagMedian: medianOf(runs, func(f figures) float64 { return f.LagMedian }),
			LagP99:    medianOf(runs, func(f figures) float64 { return f.LagP99 }),
			CPU:       medianOf(runs, func(f figures) float64 { return f.CPU }),
			Startup:   medianOf(runs, func(f figures) float64 { return f.Startup }),
			Switches:  medianOf(runs, func(f figures) float64 { return f.Switches }),
			MajFlt:    medianOf(runs, func(f figures) float64 { return f.MajFlt }),
		}}
		for _, f := range runs {
			if f.Hangup {
				tr.Hangups++
			}
		}
		rep.Tools = append(rep.Tools, tr)
	}
	return rep
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "== %d runs per tool, %d spinning load processes; %d lines, %d bytes played in %.2f s "+
		"(%d baud, %d-byte writes, boot pauses x%g; root mount to prompt %.3f s as sent)\n",
		r.Runs, r.Load, r.Lines, r.Bytes, r.PlaySeconds, r.Baud, r.Fifo, r.TimeScale, r.Interval)
	fmt.Fprintf(w, "%-11s %10s %10s %10s %15s %12s %10s %8s %10s %7s %7s\n", "tool", "median µs", "p99 µs", "max µs", "root→prompt µs",
		"lag med µs", "lag p99 µs", "CPU s", "(startup)", "ctx sw", "majflt")
	for _, t := range r.Tools {
		m := t.Median
		fmt.Fprintf(w, "%-11s %10.1f %10.1f %10.1f %15.1f %12.1f %10.1f %8.3f %10.3f %7.0f %7.0f", t.Name, m.Median*1e6, m.P99*1e6, m.Max*1e6,
			m.Interval*1e6, m.LagMedian*1e6, m.LagP99*1e6, m.CPU, m.Startup, m.Switches, m.MajFlt)
		if t.Hangups > 0 {
			fmt.Fprintf(w, "  (%d runs ended by hangup)", t.Hangups)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "(medians over the runs of each run's figure; errors are |(stamp_i - stamp_root) - (send_i - send_root)| over all lines;")
	fmt.Fprintln(w, " lag: stamp_i - send_i less the run's smallest; CPU, context switches and major faults: the child's")
	fmt.Fprintln(w, " from wait4, the minimal reader's thread's from RUSAGE_THREAD)")
}
