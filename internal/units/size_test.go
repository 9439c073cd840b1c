package units

import "testing"

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0":       0,
		"4096":    4096,
		"512B":    512,
		"4KiB":    4096,
		"4k":      4096,
		"4K":      4096,
		"4MiB":    4 << 20,
		"4M":      4 << 20,
		"1.5GiB":  3 << 29,
		"2TiB":    2 << 40,
		"500MB":   500_000_000,
		"1kB":     1000,
		"2048s":   1 << 20,
		" 64 MiB": 64 << 20,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "4 parsecs", "0.3B", "1.1.1M", "-4M", "99999999999TiB"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormatSizeRoundTrips(t *testing.T) {
	for _, n := range []int64{0, 1, 511, 512, 4096, 1536, 4 << 20, 3 << 29, 5 << 40, 1<<20 + 512, 500_000_000, 1000, 1_500_000_000} {
		s := FormatSize(n)
		back, err := ParseSize(s)
		if err != nil || back != n {
			t.Errorf("FormatSize(%d) = %q reads back as %d, %v", n, s, back, err)
		}
	}
	for n, want := range map[int64]string{64 << 20: "64MiB", 500_000_000: "500MB", 3000: "3kB", 1000 * 1024: "1000KiB", 1001: "1001B"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{1023: "1023B", 1536: "1.5KiB", 4 << 30: "4GiB", -2048: "-2KiB"} {
		if got := HumanSize(n); got != want {
			t.Errorf("HumanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestIsPowerOfTwo(t *testing.T) {
	for n, want := range map[int64]bool{0: false, 1: true, 16: true, 24: false, -8: false, 1 << 40: true} {
		if IsPowerOfTwo(n) != want {
			t.Errorf("IsPowerOfTwo(%d) != %v", n, want)
		}
	}
}
