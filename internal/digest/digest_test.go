package digest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDigest(t *testing.T) {
	// sha256("abc"), FIPS 180-2 appendix B.1.
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if sum, n, err := Reader(strings.NewReader("abc")); err != nil || sum != abc || n != 3 {
		t.Errorf("Reader: %s %d %v", sum, n, err)
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o644)
	if sum, err := File(p); err != nil || sum != abc {
		t.Errorf("File: %s %v", sum, err)
	}
	if _, err := File(p + ".missing"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
