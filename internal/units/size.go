// Package units parses and formats the byte sizes that specs, plans and
// reports use. Binary suffixes (KiB, MiB, and the bare K, M, G that dd, fio
// and mkfs accept) count in powers of 1024; kB, MB, GB count in powers of
// 1000, as storage vendors do. It must never round silently: a size that is
// not a whole number of bytes is an error.
package units

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Common sizes, for readable code.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

var multipliers = map[string]int64{
	"":    1,
	"b":   1,
	"k":   KiB,
	"kib": KiB,
	"m":   MiB,
	"mib": MiB,
	"g":   GiB,
	"gib": GiB,
	"t":   TiB,
	"tib": TiB,
	"kb":  1000,
	"mb":  1000 * 1000,
	"gb":  1000 * 1000 * 1000,
	"tb":  1000 * 1000 * 1000 * 1000,
	"s":   512, // sectors of 512 bytes, as sfdisk and parted count them
}

// ParseSize reads a size such as "4MiB", "512k", "1.5GiB", "4096" or
// "2048s" (512-byte sectors) and returns bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, suffix := t[:i], strings.TrimSpace(t[i:])
	if num == "" {
		return 0, fmt.Errorf("size %q does not start with a number", s)
	}
	mult, ok := multipliers[strings.ToLower(suffix)]
	if !ok {
		return 0, fmt.Errorf("size %q has an unknown unit %q (use B, KiB, MiB, GiB, TiB, K, M, G, T, kB, MB, GB, TB or s)", s, suffix)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("size %q is not a number", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() || r.Num().Int64() > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return r.Num().Int64(), nil
}

// FormatSize writes n with the largest binary unit that divides it
// exactly, else the largest decimal one ("500MB" as a vendor writes it),
// so that ParseSize(FormatSize(n)) reads back the same number.
func FormatSize(n int64) string {
	if n == 0 {
		return "0B"
	}
	for _, u := range []struct {
		name string
		v    int64
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB},
		{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}} {
		if n%u.v == 0 {
			return fmt.Sprintf("%d%s", n/u.v, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// HumanSize writes n rounded to one decimal in the largest binary unit not
// above it ("1.5GiB"), for tables meant to be read rather than parsed.
func HumanSize(n int64) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	for _, u := range []struct {
		name string
		v    int64
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if n >= u.v {
			s := fmt.Sprintf("%.1f", float64(n)/float64(u.v))
			s = strings.TrimSuffix(s, ".0")
			return neg + s + u.name
		}
	}
	return fmt.Sprintf("%s%dB", neg, n)
}

// IsPowerOfTwo reports whether n is a positive power of two.
func IsPowerOfTwo(n int64) bool { return n > 0 && n&(n-1) == 0 }
