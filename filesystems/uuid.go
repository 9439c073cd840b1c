package filesystems

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// parseUUID reads canonical 8-4-4-4-12 hex text, the only form every mkfs
// tool accepts.
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, fmt.Errorf("%q is not a UUID in canonical form (8-4-4-4-12 hex digits)", s)
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil {
		return u, fmt.Errorf("%q is not a UUID: %v", s, err)
	}
	copy(u[:], b)
	return u, nil
}

func formatUUID(u [16]byte) string {
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// deriveUUID makes a second identifier from the filesystem UUID, so that a
// spec needs only one and every other id still derives from names.
func deriveUUID(u [16]byte, purpose string) [16]byte {
	sum := sha256.Sum256(append([]byte("fsbench "+purpose+" "), u[:]...))
	var out [16]byte
	copy(out[:], sum[:16])
	// RFC 9562 version 8 (custom) and the RFC variant, so that tools which
	// print it do not call it malformed.
	out[6] = out[6]&0x0f | 0x80
	out[8] = out[8]&0x3f | 0x80
	return out
}

// fatVolumeID turns the UUID into the 32-bit FAT volume serial. A hash rather
// than the first four bytes, so that UUIDs sharing a prefix still differ.
func fatVolumeID(u [16]byte) string {
	sum := sha256.Sum256(append([]byte("fsbench vfat volume id "), u[:]...))
	return hex.EncodeToString(sum[:4])
}
