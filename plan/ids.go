package plan

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"strings"
)

// namespace is the UUIDv5 namespace of fsbench's name-derived ids: the
// UUIDv5 of "fsbench" in the URL namespace, fixed forever so that ids stay
// stable across releases.
var namespace = [16]byte{0x3f, 0x8a, 0x5e, 0x2d, 0x1b, 0x7c, 0x5d, 0x4e, 0x9a, 0x61, 0x0c, 0x2b, 0x48, 0xd7, 0x93, 0xe5}

// nameUUID derives a UUID (RFC 9562 version 5) from a path of names, so
// that the same spec always yields the same disk, partition and
// filesystem ids and two different boards or variants never share one.
func nameUUID(parts ...string) string {
	h := sha1.New()
	h.Write(namespace[:])
	h.Write([]byte(strings.Join(parts, "\x00")))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50 // version 5
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// mbrSignature derives the 32-bit MBR disk signature. Zero is avoided:
// Linux and Windows treat a zero signature as "none".
func mbrSignature(parts ...string) string {
	h := sha1.New()
	h.Write(namespace[:])
	h.Write([]byte("mbr\x00" + strings.Join(parts, "\x00")))
	sig := binary.LittleEndian.Uint32(h.Sum(nil))
	if sig == 0 {
		sig = 1
	}
	return fmt.Sprintf("0x%08x", sig)
}

// mbrPartUUID is what the kernel calls PARTUUID on an MBR disk:
// SSSSSSSS-PP, the signature and the partition number in hex.
func mbrPartUUID(signature string, number int) string {
	return fmt.Sprintf("%s-%02x", strings.TrimPrefix(strings.ToLower(signature), "0x"), number)
}
