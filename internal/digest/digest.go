// Package digest computes the SHA-256 digests fsbench records (input
// fingerprints, manifests, module sums, read-back listings), in the one
// form they are written: lower-case hex. It touches nothing but what it
// is given to read.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// Reader returns the SHA-256 of everything r yields, and how many bytes
// that was.
func Reader(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// File returns the SHA-256 of the file at path.
func File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, _, err := Reader(f)
	return sum, err
}
