package resultframe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// SchemaVersion is the version of the Result payload. Bump it whenever a field
// is added, removed or changes meaning: the decoder rejects unknown fields and
// newer versions, so an old host says "upgrade" instead of silently dropping a
// field it does not know.
const SchemaVersion = 1

// MaxPayload bounds the JSON payload of one result, so that garbage on the
// console cannot make the host allocate without limit.
const MaxPayload = 1 << 20

// Status is the outcome of one test case.
type Status string

// The outcomes a result can have.
const (
	StatusOK      Status = "ok"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped"
)

// Metric is one measured value. The unit travels with the value so that the
// report never has to guess it from the recipe.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// Result is one test result as the runner reports it. It is deliberately
// generic: recipes decide what goes into Metrics and Attrs.
type Result struct {
	// Version is the schema version; Encode fills in SchemaVersion when it
	// is zero.
	Version int `json:"v"`
	// RunID identifies one execution of a plan on a target; together with
	// Seq it makes a result unique across reboots.
	RunID string `json:"run"`
	// Seq numbers the results of a run from 1, persisted by the runner, so
	// the host can detect duplicates and losses.
	Seq uint64 `json:"seq"`
	// BootID is the kernel's boot id (/proc/sys/kernel/random/boot_id), so
	// that results can be grouped by boot.
	BootID string `json:"boot_id,omitempty"`

	Recipe    string `json:"recipe,omitempty"` // e.g. "fio"
	Name      string `json:"name,omitempty"`   // the test block's label
	Case      string `json:"case,omitempty"`   // one point of the test's matrix
	Variant   string `json:"variant,omitempty"`
	Iteration int    `json:"iter,omitempty"`

	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`

	// StartNS and EndNS are the target's CLOCK_MONOTONIC in nanoseconds,
	// the time base of the kernel log, so they compare with boot messages.
	StartNS int64 `json:"start_ns,omitempty"`
	EndNS   int64 `json:"end_ns,omitempty"`

	Metrics []Metric          `json:"metrics,omitempty"`
	Attrs   map[string]string `json:"attrs,omitempty"` // engine=fio|builtin, kernel=...
}

// normalize returns the form of r that survives a round trip through JSON:
// strings made valid UTF-8 (JSON cannot carry anything else), empty
// collections as nil, and the default version. Encode and the decoder both
// use it, so that what is decoded equals what was encoded.
func normalize(r Result) Result {
	if r.Version == 0 {
		r.Version = SchemaVersion
	}
	v := func(s string) string {
		if utf8.ValidString(s) {
			return s
		}
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	r.RunID, r.BootID = v(r.RunID), v(r.BootID)
	r.Recipe, r.Name, r.Case, r.Variant = v(r.Recipe), v(r.Name), v(r.Case), v(r.Variant)
	r.Status, r.Error = Status(v(string(r.Status))), v(r.Error)
	if len(r.Metrics) == 0 {
		r.Metrics = nil
	} else {
		ms := make([]Metric, len(r.Metrics))
		for i, m := range r.Metrics {
			ms[i] = Metric{Name: v(m.Name), Value: m.Value, Unit: v(m.Unit)}
		}
		r.Metrics = ms
	}
	if len(r.Attrs) == 0 {
		r.Attrs = nil
	} else {
		as := make(map[string]string, len(r.Attrs))
		for k, val := range r.Attrs {
			as[v(k)] = v(val)
		}
		r.Attrs = as
	}
	return r
}

// check reports why r (already normalized) cannot be a result.
func (r *Result) check() error {
	switch {
	case r.Version != SchemaVersion:
		return fmt.Errorf("schema version %d, this fsbench knows %d", r.Version, SchemaVersion)
	case r.RunID == "":
		return errors.New("empty run id")
	case r.Seq == 0:
		return errors.New("sequence number 0 (sequences start at 1)")
	case r.Iteration < 0:
		return fmt.Errorf("negative iteration %d", r.Iteration)
	}
	switch r.Status {
	case StatusOK, StatusFailed, StatusSkipped:
	default:
		return fmt.Errorf("unknown status %q", r.Status)
	}
	names := make(map[string]bool, len(r.Metrics))
	for _, m := range r.Metrics {
		if m.Name == "" {
			return errors.New("metric without a name")
		}
		if names[m.Name] {
			return fmt.Errorf("metric %q appears twice", m.Name)
		}
		names[m.Name] = true
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			return fmt.Errorf("metric %q is %v, which JSON cannot carry", m.Name, m.Value)
		}
	}
	return nil
}

// marshal validates r (already normalized) and returns its payload.
func (r *Result) marshal() ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// Without HTML escaping "<" stays one byte instead of six, so a payload
	// the decoder accepted can always be re-encoded within MaxPayload.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	p := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if len(p) > MaxPayload {
		return nil, fmt.Errorf("payload of %d bytes exceeds %d", len(p), MaxPayload)
	}
	return p, nil
}

// errNewerSchema marks a payload written by a newer fsbench.
var errNewerSchema = errors.New("newer schema")

// unmarshalResult parses and validates a payload.
func unmarshalResult(p []byte) (Result, error) {
	// Look at the version first, so that a newer payload is reported as
	// such and not as "unknown field".
	var head struct {
		V int `json:"v"`
	}
	if err := json.Unmarshal(p, &head); err != nil {
		return Result{}, err
	}
	if head.V < 1 {
		return Result{}, fmt.Errorf("missing or invalid schema version %d", head.V)
	}
	if head.V > SchemaVersion {
		return Result{}, fmt.Errorf("%w: result schema version %d is newer than this fsbench understands (%d): upgrade fsbench on the host",
			errNewerSchema, head.V, SchemaVersion)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Result{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Result{}, errors.New("data after the JSON object")
	}
	r = normalize(r)
	// marshal also checks that the result re-encodes within MaxPayload.
	if _, err := r.marshal(); err != nil {
		return Result{}, err
	}
	return r, nil
}

// ControlRecipe is the recipe of the results a runner reports about the
// run itself (the plan's completion) rather than about a measurement.
const ControlRecipe = "fsbench"

// The closing result of a plan: recipe ControlRecipe, test "plan", case
// "complete", with the number of results the run emitted (itself
// included) and of the boots it took.
const (
	planTest        = "plan"
	planComplete    = "complete"
	metricResults   = "results"
	metricPlanBoots = "boots"
)

// PlanComplete is the result a runner emits last: the plan is done, and
// the run emitted results results, this one included, over boots boots.
// The host stops following a board at it and checks that every sequence
// number up to results arrived.
func PlanComplete(results uint64, boots int) Result {
	return Result{
		Recipe: ControlRecipe, Name: planTest, Case: planComplete, Status: StatusOK,
		Metrics: []Metric{
			{Name: metricResults, Value: float64(results)},
			{Name: metricPlanBoots, Value: float64(boots)},
		},
	}
}

// IsControl reports whether r is about the run rather than a measurement:
// tables and charts leave it out.
func (r Result) IsControl() bool { return r.Recipe == ControlRecipe }

// IsPlanComplete reports whether r is a runner's closing result.
func (r Result) IsPlanComplete() bool {
	return r.Recipe == ControlRecipe && r.Name == planTest && r.Case == planComplete
}

// ExpectedResults is the number of results a closing result says its run
// emitted, itself included; false when r is no closing result or lacks
// the count.
func (r Result) ExpectedResults() (int, bool) {
	if !r.IsPlanComplete() {
		return 0, false
	}
	for _, m := range r.Metrics {
		if m.Name == metricResults {
			return int(m.Value), true
		}
	}
	return 0, false
}
