package logwrites

import (
	"fmt"
	"strconv"
	"strings"
)

// Code writes the state in one word that ParseState reads back, so that
// the host can rebuild a state the runner judged from the same log:
// "412" is the prefix of 412 entries; "412+420-417.418" adds entries
// 412 to 419 but 417 and 418 (reorder); "412+420~415:512:8:f0" adds
// them with entry 415 torn, keeping the units of 512 bytes of 8 whose
// bits are set (hexadecimal words, the first unit the lowest bit).
func (s State) Code() string {
	code := strconv.Itoa(s.Applied)
	b := s.Beyond
	if b == nil {
		return code
	}
	code += "+" + strconv.Itoa(b.Upto)
	if len(b.Drop) > 0 {
		d := make([]string, len(b.Drop))
		for i, x := range b.Drop {
			d[i] = strconv.Itoa(x)
		}
		code += "-" + strings.Join(d, ".")
	}
	if b.Torn >= 0 {
		words := make([]string, len(b.Keep))
		for i, w := range b.Keep {
			words[i] = strconv.FormatUint(w, 16)
		}
		code += fmt.Sprintf("~%d:%d:%d:%s", b.Torn, b.Unit, b.Units, strings.Join(words, "."))
	}
	return code
}

// ParseState reads a state's Code. The state has no number, point or
// marks: it says which bytes the device holds, which is what a rebuild
// needs. Entries are checked against a log of n entries.
func ParseState(code string, n int) (State, error) {
	bad := func(why string) (State, error) {
		return State{}, fmt.Errorf("state %q: %s", code, why)
	}
	head, rest, beyond := strings.Cut(code, "+")
	applied, err := strconv.Atoi(head)
	if err != nil || applied < 1 || applied > n {
		return bad(fmt.Sprintf("the entries applied are not a number from 1 to %d", n))
	}
	st := State{Applied: applied}
	if !beyond {
		return st, nil
	}
	b := &Beyond{Torn: -1}
	rest, torn, isTorn := strings.Cut(rest, "~")
	upto, drop, hasDrop := strings.Cut(rest, "-")
	if b.Upto, err = strconv.Atoi(upto); err != nil || b.Upto < applied || b.Upto > n {
		return bad("the last entry is not a number from the applied ones to the log's end")
	}
	b.At = b.Upto
	inRange := func(s string) (int, bool) {
		x, err := strconv.Atoi(s)
		return x, err == nil && x >= applied && x < b.Upto
	}
	if hasDrop {
		b.Model = ModelReorder
		for _, d := range strings.Split(drop, ".") {
			x, ok := inRange(d)
			if !ok {
				return bad("a dropped entry is not one of those beyond the prefix")
			}
			b.Drop = append(b.Drop, x)
		}
	}
	if isTorn {
		b.Model = ModelTorn
		f := strings.Split(torn, ":")
		if len(f) != 4 {
			return bad("a torn write is entry:unit:units:kept")
		}
		var ok bool
		if b.Torn, ok = inRange(f[0]); !ok {
			return bad("the torn entry is not one of those beyond the prefix")
		}
		if b.Unit, err = strconv.ParseInt(f[1], 10, 64); err != nil || b.Unit < 1 {
			return bad("the tear unit is not a number of bytes")
		}
		if b.Units, err = strconv.Atoi(f[2]); err != nil || b.Units < 1 || b.Units > 1<<24 {
			return bad("the torn write's units are not a number")
		}
		words := strings.Split(f[3], ".")
		if len(words) != (b.Units+63)/64 {
			return bad("the kept units do not match the write's units")
		}
		for _, w := range words {
			k, err := strconv.ParseUint(w, 16, 64)
			if err != nil {
				return bad("the kept units are not hexadecimal words")
			}
			b.Keep = append(b.Keep, k)
		}
	}
	if b.Model == "" {
		b.Model = ModelReorder
	}
	st.Beyond = b
	return st, nil
}
