package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// expNumber is a value of the exports, written with ten significant
// digits: enough for any measurement, and short enough that the last bits
// of a float computation (which may differ between CPUs that fuse
// multiply-add) do not show. A value that is not finite (a Welch t of two
// constant samples, an overflow) is null in JSON, which has no infinity,
// so that a report is always written.
type expNumber float64

func expNum(v float64) expNumber { return expNumber(v) }

func (n expNumber) finite() bool {
	return !math.IsInf(float64(n), 0) && !math.IsNaN(float64(n))
}

// String is the CSV form: the number, or +Inf, -Inf and NaN.
func (n expNumber) String() string {
	return strconv.FormatFloat(float64(n), 'g', 10, 64)
}

// MarshalJSON writes n as a JSON number, or null.
func (n expNumber) MarshalJSON() ([]byte, error) {
	if !n.finite() {
		return []byte("null"), nil
	}
	return []byte(n.String()), nil
}

func optNum(ok bool, v float64) *expNumber {
	if !ok {
		return nil
	}
	n := expNum(v)
	return &n
}

// CSV renders the aggregated table: one line per context, test case,
// candidate and metric, with the context's attributes on every line so
// that the file stands on its own.
func (r *Report) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"context"}
	for _, k := range contextKeys {
		head = append(head, k.key)
	}
	head = append(head, "recipe", "test", "case", "variant", "tool", "metric", "unit", "direction",
		"n", "failed", "skipped", "mean", "median", "stddev", "cv_percent", "ci95_low", "ci95_high", "min", "max", "vs_best", "p_vs_best")
	w.Write(head)
	s := func(n *expNumber) string {
		if n == nil {
			return ""
		}
		return n.String()
	}
	for _, row := range r.Rows {
		line := []string{row.Context.ID}
		for _, a := range row.Context.Attrs {
			line = append(line, a.Value)
		}
		line = append(line, row.Recipe, row.Test, row.Case, row.Variant, row.Tool, row.Metric, row.Unit,
			DirectionOf(row.Metric, row.Unit).String(), strconv.Itoa(row.N), strconv.Itoa(row.Failed), strconv.Itoa(row.Skipped), expNum(row.Mean).String(), expNum(row.Median).String(),
			s(optNum(row.HasSpread, row.Stddev)), s(optNum(row.HasCV, row.CV)),
			s(optNum(row.HasSpread, row.CILow)), s(optNum(row.HasSpread, row.CIHigh)),
			expNum(row.Min).String(), expNum(row.Max).String(), string(row.VsBest), s(optNum(row.HasP, row.P)))
		w.Write(line)
	}
	w.Flush()
	return b.Bytes()
}

// ComparisonCSV renders every change the comparison found, significant
// or not.
func (r *Report) ComparisonCSV() []byte {
	if r.Comparison == nil {
		return nil
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"base_context", "context", "recipe", "test", "case", "variant", "metric", "unit", "direction",
		"base_n", "base_mean", "n", "mean", "change_percent", "welch_t", "welch_df", "p", "verdict"})
	for _, ch := range r.Comparison.Changes {
		n := ch.New
		var t, df, p string
		if ch.Welch.Tested {
			t, df, p = expNum(ch.Welch.T).String(), expNum(ch.Welch.DF).String(), expNum(ch.Welch.P).String()
		}
		delta := ""
		if ch.HasDelta {
			delta = expNum(100 * ch.Delta).String()
		}
		w.Write([]string{ch.Base.Context.ID, n.Context.ID, n.Recipe, n.Test, n.Case, n.Variant, n.Metric, n.Unit,
			DirectionOf(n.Metric, n.Unit).String(), strconv.Itoa(ch.Base.N), expNum(ch.Base.Mean).String(),
			strconv.Itoa(n.N), expNum(n.Mean).String(), delta, t, df, p, string(ch.Verdict)})
	}
	w.Flush()
	return b.Bytes()
}

type jsonInput struct {
	Path         string   `json:"path"`
	Measured     int      `json:"measured"`
	Failed       int      `json:"failed"`
	Skipped      int      `json:"skipped"`
	Duplicates   int      `json:"duplicates"`
	Runs         []string `json:"runs"`
	PlanComplete int      `json:"plan_complete"`
	Variants     []string `json:"variants"`
	Contexts     []string `json:"contexts"`
}

type jsonContext struct {
	ID       string            `json:"id"`
	Attrs    map[string]string `json:"attrs"`
	Tools    []string          `json:"tools,omitempty"`
	Variants []string          `json:"variants"`
}

type jsonRow struct {
	Context   string      `json:"context"`
	Recipe    string      `json:"recipe"`
	Test      string      `json:"test"`
	Case      string      `json:"case"`
	Variant   string      `json:"variant"`
	Tool      string      `json:"tool,omitempty"`
	Metric    string      `json:"metric"`
	Unit      string      `json:"unit,omitempty"`
	Direction string      `json:"direction,omitempty"`
	N         int         `json:"n"`
	Failed    int         `json:"failed,omitempty"`
	Skipped   int         `json:"skipped,omitempty"`
	Mean      expNumber   `json:"mean"`
	Median    expNumber   `json:"median"`
	Stddev    *expNumber  `json:"stddev,omitempty"`
	CV        *expNumber  `json:"cv_percent,omitempty"`
	CI95      []expNumber `json:"ci95,omitempty"`
	Min       expNumber   `json:"min"`
	Max       expNumber   `json:"max"`
	Values    []expNumber `json:"values"`
	VsBest    string      `json:"vs_best,omitempty"`
	P         *expNumber  `json:"p_vs_best,omitempty"`
}

type jsonOutcome struct {
	Context string         `json:"context"`
	Recipe  string         `json:"recipe"`
	Test    string         `json:"test"`
	Case    string         `json:"case"`
	Variant string         `json:"variant"`
	Axis    string         `json:"axis"`
	Counts  map[string]int `json:"counts"`
}

type jsonProblem struct {
	Context   string `json:"context"`
	File      string `json:"file"`
	Recipe    string `json:"recipe"`
	Test      string `json:"test"`
	Case      string `json:"case"`
	Variant   string `json:"variant"`
	Iteration int    `json:"iter"`
	Status    string `json:"status"`
	Error     string `json:"error,omitempty"`
}

type jsonChart struct {
	File    string `json:"file"`
	Title   string `json:"title"`
	Context string `json:"context"`
}

// jsonFlashModel is one endurance run's flash model: the NAND's write
// amplification on top of the filesystem's, and the lifetime, or why
// there is none.
type jsonFlashModel struct {
	Context           string     `json:"context"`
	Recipe            string     `json:"recipe"`
	Test              string     `json:"test"`
	Case              string     `json:"case"`
	Variant           string     `json:"variant"`
	Iteration         int        `json:"iter"`
	NotModelled       string     `json:"not_modelled,omitempty"`
	DeviceBytesPerDay *expNumber `json:"device_bytes_per_day,omitempty"`
	FilesystemWA      *expNumber `json:"filesystem_write_amplification,omitempty"`
	NANDWA            *expNumber `json:"nand_write_amplification,omitempty"`
	NANDBytesPerDay   *expNumber `json:"nand_bytes_per_day,omitempty"`
	ErasesPerGiB      *expNumber `json:"erases_per_gib,omitempty"`
	Converged         bool       `json:"converged,omitempty"`
	Passes            int        `json:"passes,omitempty"`
	IdealYears        *expNumber `json:"lifetime_ideal_years,omitempty"`
	WorstYears        *expNumber `json:"lifetime_most_worn_years,omitempty"`
	NoLifetime        string     `json:"no_lifetime,omitempty"`
	Assumptions       []string   `json:"assumptions,omitempty"`
}

func jsonFlashModels(runs []*enduranceRun) []jsonFlashModel {
	var out []jsonFlashModel
	for _, run := range runs {
		j := jsonFlashModel{Context: run.ctx.ID, Recipe: run.recipe, Test: run.test, Case: run.cas, Variant: run.variant,
			Iteration: run.r.Iteration, NotModelled: run.why}
		if fm := run.model; fm != nil {
			j.DeviceBytesPerDay, j.NANDWA = optNum(true, fm.deviceDay), optNum(true, fm.res.WriteAmplification)
			j.FilesystemWA = optNum(fm.fsWA > 0, fm.fsWA)
			j.NANDBytesPerDay, j.ErasesPerGiB = optNum(true, fm.nandDay), optNum(true, fm.erasesPerGiB())
			j.Converged, j.Passes, j.Assumptions = fm.res.Converged, fm.res.Passes(), fm.assumptions
			if fm.life != nil {
				j.IdealYears, j.WorstYears = optNum(true, fm.life.IdealYears), optNum(true, fm.life.WorstYears)
			} else {
				j.NoLifetime = fm.lifeWhy
			}
		}
		out = append(out, j)
	}
	return out
}

type jsonChange struct {
	BaseContext string     `json:"base_context"`
	Context     string     `json:"context"`
	Recipe      string     `json:"recipe"`
	Test        string     `json:"test"`
	Case        string     `json:"case"`
	Variant     string     `json:"variant"`
	Metric      string     `json:"metric"`
	BaseMean    expNumber  `json:"base_mean"`
	BaseN       int        `json:"base_n"`
	Mean        expNumber  `json:"mean"`
	N           int        `json:"n"`
	Change      *expNumber `json:"change_percent,omitempty"`
	P           *expNumber `json:"p,omitempty"`
	Verdict     string     `json:"verdict"`
}

// JSON renders the report's data (not its layout): one object whose
// lists hold one element per line, compact yet reviewable as a diff. With
// a baseline it also holds the baseline's inputs and contexts and every
// change.
func (r *Report) JSON() ([]byte, error) {
	var rows []jsonRow
	for _, row := range r.Rows {
		jr := jsonRow{Context: row.Context.ID, Recipe: row.Recipe, Test: row.Test, Case: row.Case, Variant: row.Variant,
			Tool: row.Tool, Metric: row.Metric, Unit: row.Unit, Direction: DirectionOf(row.Metric, row.Unit).String(),
			N: row.N, Failed: row.Failed, Skipped: row.Skipped, Mean: expNum(row.Mean), Median: expNum(row.Median),
			Stddev: optNum(row.HasSpread, row.Stddev), CV: optNum(row.HasCV, row.CV), Min: expNum(row.Min), Max: expNum(row.Max),
			VsBest: string(row.VsBest), P: optNum(row.HasP, row.P)}
		if row.HasSpread {
			jr.CI95 = []expNumber{expNum(row.CILow), expNum(row.CIHigh)}
		}
		for _, v := range row.Values() {
			jr.Values = append(jr.Values, expNum(v))
		}
		rows = append(rows, jr)
	}
	var outcomes []jsonOutcome
	for _, o := range r.Outcomes {
		outcomes = append(outcomes, jsonOutcome{Context: o.Context.ID, Recipe: o.Recipe, Test: o.Test, Case: o.Case,
			Variant: o.Variant, Axis: o.Axis, Counts: o.Counts})
	}
	var problems []jsonProblem
	for _, p := range r.Problems {
		problems = append(problems, jsonProblem{Context: p.Context.ID, File: p.Source, Recipe: p.Recipe, Test: p.Test,
			Case: p.Case, Variant: p.Variant, Iteration: p.Iteration, Status: string(p.Status), Error: p.Error})
	}
	var charts []jsonChart
	for _, ch := range r.Charts {
		charts = append(charts, jsonChart{File: ChartsDir + "/" + ch.Slug + ".svg", Title: ch.Title, Context: ch.Context.ID})
	}
	w := &jsonWriter{}
	w.value("format", Format)
	w.value("title", r.Title)
	w.value("confidence", Confidence)
	list(w, "inputs", jsonInputs(r.Inputs))
	list(w, "contexts", jsonContexts(r.Contexts))
	list(w, "rows", rows)
	list(w, "outcomes", outcomes)
	list(w, "problems", problems)
	list(w, "charts", charts)
	if len(r.models) > 0 {
		list(w, "flash_models", jsonFlashModels(r.models))
	}
	if c := r.Comparison; c != nil {
		var changes []jsonChange
		for _, ch := range c.Changes {
			changes = append(changes, jsonChange{BaseContext: ch.Base.Context.ID, Context: ch.New.Context.ID,
				Recipe: ch.New.Recipe, Test: ch.New.Test, Case: ch.New.Case, Variant: ch.New.Variant, Metric: ch.New.Metric,
				BaseMean: expNum(ch.Base.Mean), BaseN: ch.Base.N, Mean: expNum(ch.New.Mean), N: ch.New.N,
				Change: optNum(ch.HasDelta, 100*ch.Delta), P: optNum(ch.Welch.Tested, ch.Welch.P), Verdict: string(ch.Verdict)})
		}
		list(w, "baseline_inputs", jsonInputs(c.Inputs))
		list(w, "baseline_contexts", jsonContexts(c.Contexts))
		list(w, "changes", changes)
	}
	return w.end()
}

// jsonWriter writes one JSON object, a member per line.
type jsonWriter struct {
	b   bytes.Buffer
	err error
}

func (w *jsonWriter) key(k string) {
	if w.b.Len() == 0 {
		w.b.WriteString("{\n")
	} else {
		w.b.WriteString(",\n")
	}
	kb, _ := json.Marshal(k)
	w.b.Write(kb)
	w.b.WriteString(": ")
}

func (w *jsonWriter) value(k string, v any) {
	w.key(k)
	b, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("%s: %w", k, err)
	}
	w.b.Write(b)
}

// list writes a list with one element per line.
func list[T any](w *jsonWriter, k string, items []T) {
	w.key(k)
	if len(items) == 0 {
		w.b.WriteString("[]")
		return
	}
	w.b.WriteString("[\n")
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil && w.err == nil {
			w.err = fmt.Errorf("%s: %w", k, err)
		}
		w.b.WriteString("  ")
		w.b.Write(b)
		if i < len(items)-1 {
			w.b.WriteByte(',')
		}
		w.b.WriteByte('\n')
	}
	w.b.WriteString("]")
}

func (w *jsonWriter) end() ([]byte, error) {
	w.b.WriteString("\n}\n")
	return w.b.Bytes(), w.err
}

func jsonInputs(ins []InputSummary) []jsonInput {
	var out []jsonInput
	for _, in := range ins {
		out = append(out, jsonInput{Path: in.Path, Measured: in.OK, Failed: in.Failed, Skipped: in.Skipped,
			Duplicates: in.Duplicates, Runs: in.Runs, PlanComplete: in.Complete, Variants: in.Variants, Contexts: in.Contexts})
	}
	return out
}

func jsonContexts(cs []*Context) []jsonContext {
	var out []jsonContext
	for _, c := range cs {
		jc := jsonContext{ID: c.ID, Attrs: map[string]string{}, Tools: c.Tools, Variants: c.Variants}
		for _, a := range c.Attrs {
			if a.Value != "" {
				jc.Attrs[a.Key] = a.Value
			}
		}
		out = append(out, jc)
	}
	return out
}
