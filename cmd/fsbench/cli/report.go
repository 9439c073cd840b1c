package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/report"
	"github.com/fsbench/fsbench/spec"
)

func runReport(env *Env, args []string) int {
	fs := newFlagSet(env, "report", "RESULTS.jsonl|DIR...",
		"Turn results files (as 'run' and 'capture' store them; a directory stands for the\n"+
			"*.jsonl files under it) into a report in the output directory: report.html (one\n"+
			"self-contained page with its charts inline), report.md with the charts as SVG\n"+
			"files in charts/, and the aggregated table as summary.csv and summary.json.\n"+
			"Results measured in different contexts (kernel, machine, storage device, runner)\n"+
			"are reported apart, never pooled; failed and skipped results are listed with\n"+
			"their errors, never averaged in. With -baseline, every metric is compared with\n"+
			"the baseline's by Welch's t-test and regressions are listed.")
	out := fs.String("o", filepath.Join("out", "report"), "output directory")
	title := fs.String("title", "", "title of the report (default \"fsbench report\")")
	var baseline listFlag
	fs.Var(&baseline, "baseline", "results file or directory to compare with (repeatable); adds a comparison section and comparison.csv")
	failOn := fs.Bool("fail-on-regression", false, fmt.Sprintf("exit %d when the comparison with -baseline finds a regression", ExitRegression))
	specPath := fs.String("spec", "", "the spec the results come from: its verdict block weighs the criteria and sets the requirements (-var and -var-file apply to it)")
	var sf specFlags
	sf.register(fs)
	if code, done := parse(fs, args); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(env.Stderr, "fsbench report: expected at least one results file\n")
		return ExitUsage
	}
	if *failOn && len(baseline) == 0 {
		fmt.Fprintf(env.Stderr, "fsbench report: -fail-on-regression needs -baseline\n")
		return ExitUsage
	}
	ins, err := report.Load(fs.Args())
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench report: %s\n", err)
		return ExitIO
	}
	opts := report.Options{Title: *title}
	if *specPath != "" {
		path, code := specArg(env, fs, &sf, *specPath)
		if code != ExitOK {
			return code
		}
		s, diags := spec.Load(path, sf.planningOptions(env))
		writeDiags(env, s, diags)
		if diags.HasErrors() {
			return ExitInvalid
		}
		opts.Weights, opts.Requirements = verdictOptions(s)
	}
	if len(baseline) > 0 {
		if opts.Baseline, err = report.Load(baseline); err != nil {
			fmt.Fprintf(env.Stderr, "fsbench report: baseline: %s\n", err)
			return ExitIO
		}
	}
	rep := report.Build(ins, opts)
	if len(rep.Contexts) > 1 {
		env.Log.Warnf("the results come from %d different contexts; the report shows each apart", len(rep.Contexts))
	}
	if _, err := rep.Write(*out); err != nil {
		fmt.Fprintf(env.Stderr, "fsbench report: %s\n", err)
		return ExitIO
	}
	fmt.Fprintln(env.Stdout, rep.SummaryLine())
	for _, name := range []string{report.HTMLFile, report.MarkdownFile, report.CSVFile, report.JSONFile} {
		fmt.Fprintln(env.Stdout, filepath.Join(*out, name))
	}
	if rep.Comparison == nil {
		return ExitOK
	}
	fmt.Fprintln(env.Stdout, filepath.Join(*out, report.ComparisonFile))
	regs := rep.Comparison.Regressions()
	if len(regs) == 0 {
		fmt.Fprintf(env.Stdout, "no regression (%d metrics compared)\n", len(rep.Comparison.Changes))
		return ExitOK
	}
	for _, ch := range regs {
		fmt.Fprintf(env.Stdout, "regression: %s\n", ch)
	}
	if *failOn {
		return ExitRegression
	}
	return ExitOK
}

// verdictOptions are what the spec's verdict block asks of the report.
func verdictOptions(s *spec.Spec) (map[string]float64, []report.Requirement) {
	if len(s.Variants) == 0 || s.Variants[0].Verdict == nil {
		return nil, nil
	}
	v := s.Variants[0].Verdict
	var reqs []report.Requirement
	for _, q := range v.Requires {
		r := report.Requirement{Name: q.Name, Max: q.Max, Min: q.Min, Forbid: q.Forbid, Criterion: q.Criterion}
		if q.Metric != "" {
			r.Recipe, r.Metric, _ = strings.Cut(q.Metric, ".")
		} else {
			r.Recipe, r.Axis, _ = strings.Cut(q.Outcome, ".")
		}
		reqs = append(reqs, r)
	}
	return v.Weights, reqs
}
