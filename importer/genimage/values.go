package genimage

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/fsbench/fsbench/importer"
)

// get returns the last value of option name in sec (libconfuse keeps the
// last of an option set twice), and the option.
func get(sec *section, name string) (value, *option) {
	var found *option
	for _, o := range sec.opts {
		if o.name == name {
			found = o
		}
	}
	if found == nil || len(found.values) == 0 {
		return value{}, found
	}
	return found.values[len(found.values)-1], found
}

// sub returns the sections of sec named name.
func sub(sec *section, name string) []*section {
	var out []*section
	for _, s := range sec.secs {
		if s.name == name {
			out = append(out, s)
		}
	}
	return out
}

// parseSize reads a size as genimage's strtoul_suffix does: a C integer
// (0x hex, leading 0 octal) with k, K, M, G (binary) or s (sectors).
func parseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 's':
			mult = 512
		}
		if mult != 1 {
			s = s[:len(s)-1]
		}
	}
	n, ok := parseCInt(s)
	if !ok || n < 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

// parseCInt reads an integer as strtoull with base 0 does.
func parseCInt(s string) (int64, bool) {
	if s == "" || strings.ContainsAny(s, "_+- ") {
		return 0, false
	}
	base, digits := 10, s
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	n, err := strconv.ParseInt(digits, base, 64)
	return n, err == nil
}

// parseBool reads a libconfuse boolean.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// placeholder is a value a board's post-image script writes into a
// template before genimage reads it (%PARTUUID%, %UBOOTBIN%).
var placeholder = regexp.MustCompile(`%[A-Z][A-Z0-9_]*%`)

// varName turns an environment variable's or a placeholder's name into
// the spec's variable: lower case, letters, digits and '_'.
func varName(s string) string {
	switch s {
	case "INPUTPATH", "BINARIES_DIR":
		return "binaries"
	case "ROOTPATH":
		return "rootpath"
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "v_" + out
	}
	return out
}

// text turns v into a Text, each environment reference and placeholder a
// variable of the spec, declared in s.
func text(s *importer.Spec, v value) importer.Text {
	var t importer.Text
	for _, sg := range v.segs {
		if sg.env != "" {
			name := varName(sg.env)
			vr := importer.Variable{Name: name, Description: "the environment variable " + sg.env + ", which genimage expands in its configuration"}
			if name == "binaries" {
				vr = binariesVar
			}
			if sg.hasDefault {
				d := sg.deflt
				vr.Default = &d
			}
			s.AddVariable(vr)
			t = append(t, importer.Seg{Var: name})
			continue
		}
		rest := sg.lit
		for {
			loc := placeholder.FindStringIndex(rest)
			if loc == nil {
				break
			}
			if loc[0] > 0 {
				t = append(t, importer.Seg{Lit: rest[:loc[0]]})
			}
			ph := rest[loc[0]+1 : loc[1]-1]
			name := varName(ph)
			s.AddVariable(importer.Variable{Name: name, Description: "what the board's post-image script writes in place of %" + ph + "% in the configuration"})
			t = append(t, importer.Seg{Var: name})
			rest = rest[loc[1]:]
		}
		if rest != "" {
			t = append(t, importer.Seg{Lit: rest})
		}
	}
	return t
}

// hasVars tells whether v holds an environment reference or a
// placeholder.
func hasVars(v value) bool {
	p, ok := v.plain()
	return !ok || placeholder.MatchString(p)
}

// inputPath is the path of an input genimage reads: relative to its
// input path (the spec's variable binaries) unless absolute or starting
// with an environment variable (a script's placeholder names a file in
// the input path).
func inputPath(s *importer.Spec, v value) importer.Text {
	t := text(s, v)
	env := len(v.segs) > 0 && v.segs[0].env != ""
	if len(t) > 0 && (env && t[0].Var != "binaries" || strings.HasPrefix(t[0].Lit, "/")) {
		return t
	}
	if len(t) > 0 && t[0].Var == "binaries" {
		return t
	}
	s.AddVariable(binariesVar)
	return importer.In("binaries", t)
}

var binariesVar = importer.Variable{Name: "binaries", Description: "genimage's input path: Buildroot's BINARIES_DIR"}

// last is the value of an option set once, or the last of its list.
func last(o *option) value {
	if len(o.values) == 0 {
		return value{at: o.at}
	}
	return o.values[len(o.values)-1]
}
