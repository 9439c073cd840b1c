package storageinfo

import (
	"fmt"
	"strconv"
)

// A Fact is one thing the device says about itself: a value and the place
// it was read from, or the reason it could not be read. The zero Fact is
// not available (it was never looked at), so a forgotten field can never
// pass for a zero the device reported.
type Fact struct {
	Num    float64 // the value, for a numeric fact
	Text   string  // the value in words: a decoded code ("0x01 (0-10% of life used)") or a text fact
	Unit   string  // Num's unit: "bytes", "sectors", "ms", "Hz"
	Source string  // where it was read: "EXT_CSD HC_ERASE_GRP_SIZE [224]", "sysfs preferred_erase_size"
	Reason string  // why it is not available; empty when it is

	numeric bool
}

// num is a numeric fact read from source.
func num(v float64, unit, source string) Fact {
	return Fact{Num: v, Unit: unit, Source: source, numeric: true}
}

// code is a numeric fact that is a code, with its meaning in words.
func code(v uint64, text, source string) Fact {
	return Fact{Num: float64(v), Text: text, Source: source, numeric: true}
}

// text is a fact that is only words.
func text(s, source string) Fact { return Fact{Text: s, Source: source} }

// missing is a fact that is not available, and why.
func missing(format string, args ...any) Fact {
	return Fact{Reason: fmt.Sprintf(format, args...)}
}

// Known reports whether the fact holds a value read from the device.
func (f Fact) Known() bool { return f.Reason == "" && (f.numeric || f.Text != "") }

// Numeric reports whether the fact holds a number.
func (f Fact) Numeric() bool { return f.Known() && f.numeric }

// Why is the reason the fact is not available, or "" when it is.
func (f Fact) Why() string {
	switch {
	case f.Known():
		return ""
	case f.Reason != "":
		return f.Reason
	default:
		return "not read"
	}
}

// String is the fact as a human reads it: "524288 bytes (EXT_CSD
// HC_ERASE_GRP_SIZE [224])", "0x01 (0-10% of life used) (EXT_CSD
// DEVICE_LIFE_TIME_EST_TYP_A [268])" or "not available: ...".
func (f Fact) String() string {
	if !f.Known() {
		return "not available: " + f.Why()
	}
	v := f.Text
	if v == "" {
		v = strconv.FormatFloat(f.Num, 'f', -1, 64)
		if f.Unit != "" {
			v += " " + f.Unit
		}
	}
	if f.Source != "" {
		v += " (" + f.Source + ")"
	}
	return v
}
