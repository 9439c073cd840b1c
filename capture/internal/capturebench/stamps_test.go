package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func testLog(t *testing.T, text string) *bootLog {
	t.Helper()
	path := filepath.Join(t.TempDir(), "boot.log")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := readBootLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The two tools print the reset line differently (fsbench: abs 0,
// grabserial: abs on the old base); both must give the same times.
func TestParseStampsResetStyles(t *testing.T) {
	l := testLog(t, "a\r\nb\r\nVFS: Mounted root\r\nd\r\nlogin: ")
	want := []float64{0, 0.5, 0.75, 1.0, 1.25}
	outs := map[string]string{
		"fsbench": "[   0.000000  0.000000] a\n[   0.500000  0.500000] b\n[   0.000000  0.250000] VFS: Mounted root\n" +
			"[   0.250000  0.250000] d\n[   0.500000  0.250000] login: \n",
		"grabserial": "[0.000000 0.000000] a\n[0.500000 0.500000] b\n[0.750000 0.250000] VFS: Mounted root\n" +
			"[0.250000 0.250000] d\n[0.500000 0.250000] logi",
	}
	for name, out := range outs {
		got, err := parseStamps(out, l.lines, 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("%s: line %d at %g, want %g", name, i+1, got[i], want[i])
			}
		}
	}
}

func TestParseStampsRejectsOtherText(t *testing.T) {
	l := testLog(t, "a\nb\n")
	if _, err := parseStamps("[0.0 0.0] a\n[0.1 0.1] c\n", l.lines, 0); err == nil {
		t.Error("a wrong line was accepted")
	}
	if _, err := parseStamps("[0.0 0.0] a\n", l.lines, 0); err == nil {
		t.Error("a missing line was accepted")
	}
}
