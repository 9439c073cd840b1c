// Package fields describes typed settings (a recipe parameter, a mkfs tuning
// knob) once, so that the spec decoder can check any of them the same way:
// convert an HCL value, apply its limits, and return a plain Go value that
// marshals to stable JSON. It knows nothing of HCL syntax or source ranges;
// the caller turns its errors into located diagnostics. It belongs to the
// spec language (the recipe and filesystem catalogues declare their
// settings with it) and must never be linked into the target runner.
package fields

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/fsbench/fsbench/internal/units"
)

// Kind is the type of one field's value.
type Kind int

const (
	// Int is a whole number; Go value int64.
	Int Kind = iota
	// Size is a byte count given as a number or a size string ("4MiB");
	// Go value int64 bytes.
	Size
	// Float is a real number; Go value float64.
	Float
	// Bool is true or false; Go value bool.
	Bool
	// String is free text; Go value string.
	String
	// Enum is one string out of Field.Enum; Go value string.
	Enum
	// Duration is a time such as "10s" or "250ms"; Go value string in
	// time.Duration's canonical form, so that JSON stays readable.
	Duration
	// Partition is a reference to one of the spec's partitions, written
	// partition.NAME as `on` is; Go value string, the name. The spec
	// decoder reads it statically (Convert refuses it), and resolves it.
	Partition
)

func (k Kind) String() string {
	switch k {
	case Int:
		return "whole number"
	case Size:
		return "size"
	case Float:
		return "number"
	case Bool:
		return "bool"
	case String:
		return "string"
	case Enum:
		return "one of a fixed set of strings"
	case Duration:
		return "duration"
	case Partition:
		return "partition reference"
	}
	return "unknown"
}

// Field is one typed setting.
type Field struct {
	Name string
	Kind Kind
	// List means the value is a list of Kind (for example fio's rw modes
	// when they are a set rather than a sweep).
	List bool
	// Sweep means a list is accepted where one value is expected, and each
	// element becomes a separate case (a matrix axis of a test).
	Sweep bool
	Enum  []string
	// Min and Max bound Int, Size, Float and Duration (in seconds for
	// Duration); nil means unbounded.
	Min, Max *float64
	// PowerOfTwo demands a power of two (Int and Size).
	PowerOfTwo bool
	// Multiple demands a multiple of this value (Int and Size).
	Multiple int64
	// Formatted (Partition) lets the partition named have a filesystem
	// block, which the test writes whole (an update's slot); without it
	// the partition must have none, since the test overwrites it.
	Formatted bool
	// Default is the Go value used when the attribute is absent; nil with
	// Required false means "absent stays absent".
	Default  any
	Required bool
	// Unit names the unit of the value in reports ("bytes", "s", "%").
	Unit string
	Doc  string
}

// Bound is a helper for Field.Min and Field.Max.
func Bound(v float64) *float64 { return &v }

// Convert checks v against the field and returns its Go value. For a
// Sweep field the result is always a []any of element values.
func (f Field) Convert(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, fmt.Errorf("%s must not be null", f.Name)
	}
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("%s is not known before the build", f.Name)
	}
	ty := v.Type()
	isList := ty.IsListType() || ty.IsTupleType() || ty.IsSetType()
	switch {
	case f.List || (f.Sweep && isList):
		if !isList {
			return nil, fmt.Errorf("a list of %s is required", f.elemsDesc())
		}
		if v.LengthInt() == 0 && f.Sweep {
			return nil, fmt.Errorf("the list must not be empty")
		}
		out := make([]any, 0, v.LengthInt())
		for i, it := 0, v.ElementIterator(); it.Next(); i++ {
			_, ev := it.Element()
			x, err := f.scalar(ev)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, x)
		}
		return out, nil
	case f.Sweep:
		x, err := f.scalar(v)
		if err != nil {
			return nil, err
		}
		return []any{x}, nil
	default:
		if isList {
			return nil, fmt.Errorf("a single %s is required, not a list", f.elemDesc())
		}
		return f.scalar(v)
	}
}

// elemsDesc names the elements of a list in the plural.
func (f Field) elemsDesc() string {
	switch f.Kind {
	case Enum:
		return "values out of " + quoteList(f.Enum)
	case Bool:
		return "bools"
	case Int:
		return "whole numbers"
	case Float:
		return "numbers"
	}
	return f.Kind.String() + "s"
}

func (f Field) elemDesc() string {
	if f.Kind == Enum {
		return "value out of " + quoteList(f.Enum)
	}
	return f.Kind.String()
}

func (f Field) scalar(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, fmt.Errorf("value must not be null")
	}
	switch f.Kind {
	case Int:
		n, err := wholeNumber(v)
		if err != nil {
			return nil, err
		}
		return n, f.checkInt(n)
	case Size:
		n, err := SizeValue(v)
		if err != nil {
			return nil, err
		}
		return n, f.checkInt(n)
	case Float:
		nv, err := convert.Convert(v, cty.Number)
		if err != nil {
			return nil, fmt.Errorf("a number is required")
		}
		x, _ := nv.AsBigFloat().Float64()
		return x, f.checkRange(x, fmt.Sprint(x))
	case Bool:
		bv, err := convert.Convert(v, cty.Bool)
		if err != nil {
			return nil, fmt.Errorf("true or false is required")
		}
		return bv.True(), nil
	case String:
		sv, err := stringValue(v)
		if err != nil {
			return nil, err
		}
		return sv, nil
	case Enum:
		sv, err := stringValue(v)
		if err != nil {
			return nil, err
		}
		for _, e := range f.Enum {
			if e == sv {
				return sv, nil
			}
		}
		return nil, &UnknownChoiceError{Value: sv, Choices: f.Enum}
	case Duration:
		d, err := DurationValue(v)
		if err != nil {
			return nil, err
		}
		return d.String(), f.checkRange(d.Seconds(), d.String())
	case Partition:
		return nil, fmt.Errorf("a partition reference such as partition.log is required")
	}
	return nil, fmt.Errorf("field %s has an unknown kind", f.Name)
}

func (f Field) checkInt(n int64) error {
	if f.PowerOfTwo && !units.IsPowerOfTwo(n) {
		return fmt.Errorf("%s is not a power of two", f.show(n))
	}
	if f.Multiple > 0 && n%f.Multiple != 0 {
		return fmt.Errorf("%s is not a multiple of %s", f.show(n), f.show(f.Multiple))
	}
	return f.checkRange(float64(n), f.show(n))
}

func (f Field) show(n int64) string {
	if f.Kind == Size {
		return units.FormatSize(n)
	}
	return fmt.Sprint(n)
}

func (f Field) checkRange(x float64, shown string) error {
	bound := func(b float64) string {
		switch f.Kind {
		case Size:
			return units.FormatSize(int64(b))
		case Duration:
			return time.Duration(b * float64(time.Second)).String()
		}
		return fmt.Sprint(b)
	}
	if f.Min != nil && x < *f.Min {
		return fmt.Errorf("%s is below the minimum of %s", shown, bound(*f.Min))
	}
	if f.Max != nil && x > *f.Max {
		return fmt.Errorf("%s is above the maximum of %s", shown, bound(*f.Max))
	}
	return nil
}

// UnknownChoiceError is returned for an Enum value outside the set, so that
// the caller can add a "did you mean" suggestion.
type UnknownChoiceError struct {
	Value   string
	Choices []string
}

func (e *UnknownChoiceError) Error() string {
	return fmt.Sprintf("%q is not one of %s", e.Value, quoteList(e.Choices))
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func stringValue(v cty.Value) (string, error) {
	if v.Type() != cty.String && v.Type() != cty.Number && v.Type() != cty.Bool {
		return "", fmt.Errorf("a string is required, not %s", v.Type().FriendlyName())
	}
	sv, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", fmt.Errorf("a string is required")
	}
	return sv.AsString(), nil
}

func wholeNumber(v cty.Value) (int64, error) {
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, fmt.Errorf("a whole number is required, not %s", v.Type().FriendlyName())
	}
	return bigToInt(nv.AsBigFloat())
}

func bigToInt(bf *big.Float) (int64, error) {
	if !bf.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number", bf.Text('g', -1))
	}
	n, acc := bf.Int64()
	if acc != big.Exact || n > math.MaxInt64/2 || n < math.MinInt64/2 {
		return 0, fmt.Errorf("%s is out of range", bf.Text('g', -1))
	}
	return n, nil
}

// SizeValue reads a size from a number of bytes or a size string.
func SizeValue(v cty.Value) (int64, error) {
	switch v.Type() {
	case cty.Number:
		n, err := bigToInt(v.AsBigFloat())
		if err != nil {
			return 0, fmt.Errorf("a size in bytes must be whole: %w", err)
		}
		if n < 0 {
			return 0, fmt.Errorf("a size must not be negative")
		}
		return n, nil
	case cty.String:
		return units.ParseSize(v.AsString())
	}
	return 0, fmt.Errorf("a size (a number of bytes or a string such as \"4MiB\") is required, not %s", v.Type().FriendlyName())
}

// maxSeconds keeps a duration in seconds within time.Duration's range
// (about 292 years).
const maxSeconds = float64(math.MaxInt64 / int64(time.Second))

// DurationValue reads a duration from a string such as "1.5s" or from a
// number of seconds.
func DurationValue(v cty.Value) (time.Duration, error) {
	switch v.Type() {
	case cty.Number:
		x, _ := v.AsBigFloat().Float64()
		if x < 0 {
			return 0, fmt.Errorf("a duration must not be negative")
		}
		if x > maxSeconds {
			return 0, fmt.Errorf("%g seconds is longer than any test can run", x)
		}
		return time.Duration(x * float64(time.Second)), nil
	case cty.String:
		d, err := time.ParseDuration(v.AsString())
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"10s\" or \"250ms\"", v.AsString())
		}
		if d < 0 {
			return 0, fmt.Errorf("a duration must not be negative")
		}
		return d, nil
	}
	return 0, fmt.Errorf("a duration (\"10s\", \"250ms\" or a number of seconds) is required, not %s", v.Type().FriendlyName())
}
