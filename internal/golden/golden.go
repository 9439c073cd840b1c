// Package golden compares test output with files kept in testdata, and
// rewrites them when the test runs with -update. Golden files are never
// edited by hand: the diff of a rewrite is the review.
package golden

import (
	"bytes"
	"os"
	"testing"
)

// Check compares got with the file at path, or writes it when update is
// set.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the output (run go test -update and review the diff):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
