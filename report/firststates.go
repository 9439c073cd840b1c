package report

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// FirstState is the first state of a bad class that a crash-state
// campaign (crash_states, update) found: where to look first, and the
// state fsbench crash-state rebuilds from the run's disk.
type FirstState struct {
	Context                     *Context
	Recipe, Test, Case, Variant string
	Iteration                   int
	Class                       string // the state's classes: "Fsck/Intact", "Bricked"
	State                       string // as the result names it: its code, the log's entry, ...
	What                        string // what went wrong in it
}

// firstStateKinds are the result attributes that name a first state,
// with the attribute of its class (or the class itself) and those that
// say what happened.
var firstStateKinds = []struct {
	attr, classAttr, class string
	what                   []string
}{
	{"first_bad_state", "first_bad_class", "", []string{"first_bad_model", "first_bad_mount", "first_bad_data", "first_bad_checker", "first_bad_last_op"}},
	{"first_fallback_state", "", "Fallback", []string{"first_fallback"}},
	{"first_bricked_state", "", "Bricked", []string{"first_bricked"}},
}

// firstStates reads the first states r names.
func firstStates(c *Context, r *resultframe.Result) []FirstState {
	var out []FirstState
	for _, k := range firstStateKinds {
		st := r.Attrs[k.attr]
		if st == "" {
			continue
		}
		class := k.class
		if k.classAttr != "" {
			class = r.Attrs[k.classAttr]
		}
		var what []string
		for _, w := range k.what {
			if v := r.Attrs[w]; v != "" {
				what = append(what, v)
			}
		}
		out = append(out, FirstState{Context: c, Recipe: r.Recipe, Test: r.Name, Case: r.Case, Variant: r.Variant,
			Iteration: r.Iteration, Class: class, State: st, What: strings.Join(what, "; ")})
	}
	return out
}

// firstStatesText introduces the table.
const firstStatesText = "The first state of each bad class that each crash_states or update case found. " +
	"fsbench crash-state -log LOG -on PARTITION -state STATE -o FILE DISK rebuilds it from the run's disk, STATE being the state's first word; " +
	"for an update test -on names its partitions (on, slot_a, slot_b and env, comma-separated) and FILE is a copy of the disk that boots as the board would."

// firstStatesTable lists the first states.
func (r *Report) firstStatesTable() *Table {
	t := &Table{Head: []string{"context", "test", "case", "variant", "iteration", "class", "state", "what"}}
	for _, f := range r.FirstStates {
		t.Rows = append(t.Rows, []string{f.Context.ID, f.Recipe + "." + f.Test, f.Case, f.Variant, strconv.Itoa(f.Iteration), f.Class, f.State, clip(f.What, 400)})
	}
	return t
}

// clip keeps the first n bytes of s, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
