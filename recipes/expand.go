package recipes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/internal/fields"
	"github.com/fsbench/fsbench/internal/units"
)

// SingleCase is the name of the only case of a test without sweep fields.
const SingleCase = "single"

// Case is one concrete combination of a test's sweep values. Params holds
// every value of the test, with each sweep field reduced to one element.
type Case struct {
	// Name is made of one word per sweep field, in field order, joined by
	// "-": "randread-4MiB-direct". A field swept over one value still gives
	// its word, so narrowing a sweep does not rename the remaining cases.
	Name   string
	Params Params
}

// Expand returns the cartesian product of the sweep fields present in p, in
// field order, the first field varying slowest (like nested loops). Values
// that are not sweeps are copied into every case. The result depends only on
// p: same values, same cases, same order.
func (r *Recipe) Expand(p Params) []Case {
	cases := []Case{{Params: copyParams(p)}}
	var words [][]string
	for _, f := range r.Fields {
		v, ok := p[f.Name]
		if !f.Sweep || !ok {
			continue
		}
		vals := asList(v)
		next := make([]Case, 0, len(cases)*len(vals))
		nextWords := make([][]string, 0, len(cases)*len(vals))
		for i, c := range cases {
			for _, x := range vals {
				cp := copyParams(c.Params)
				cp[f.Name] = x
				next = append(next, Case{Params: cp})
				var w []string
				if words != nil {
					w = append(w, words[i]...)
				}
				nextWords = append(nextWords, append(w, r.word(f, x)))
			}
		}
		cases, words = next, nextWords
	}
	seen := map[string]int{}
	for i := range cases {
		name := SingleCase
		if words != nil {
			name = strings.Join(words[i], "-")
		}
		// Validate rejects repeated sweep values; should they get here
		// anyway, the names stay unique and deterministic.
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s~%d", name, n)
		}
		cases[i].Name = name
	}
	return cases
}

// word is the readable form of one sweep value in a case name.
func (r *Recipe) word(f fields.Field, v any) string {
	var s string
	switch x := v.(type) {
	case bool:
		w, ok := r.BoolWords[f.Name]
		switch {
		case ok && x:
			s = w[1]
		case ok:
			s = w[0]
		case x:
			s = f.Name
		default:
			s = "no" + f.Name
		}
	case int64:
		if f.Kind == fields.Size {
			s = units.FormatSize(x)
		} else {
			s = f.Name + strconv.FormatInt(x, 10)
		}
	case float64:
		s = f.Name + strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		s = x
	default:
		s = fmt.Sprint(x)
	}
	return sanitize(s)
}

// sanitize keeps a case name usable as a file name and a report key.
func sanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// asList returns the elements of a sweep or list value, or the value itself
// as the only element.
func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

func copyParams(p Params) Params {
	out := make(Params, len(p))
	for k, v := range p {
		out[k] = copyValue(v)
	}
	return out
}
