package storageinfo

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// field is bits hi..lo of a register sent most significant byte first (the
// CSD, CID, SCR and SD Status as the card sends them and as sysfs prints
// them), numbered as the specifications do: bit 0 is the last byte's least
// significant bit.
func field(reg []byte, hi, lo int) uint64 {
	var v uint64
	for b := hi; b >= lo; b-- {
		byteIdx := len(reg) - 1 - b/8
		v = v<<1 | uint64(reg[byteIdx]>>(b%8)&1)
	}
	return v
}

// le is the little-endian number in EXT_CSD bytes [lo+n-1:lo], the order
// JEDEC gives multi-byte EXT_CSD fields in.
func le(b []byte, lo, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[lo+i])
	}
	return v
}

// parseHexRegister reads a register printed as hex digits (sysfs csd, cid,
// scr, ssr), ignoring white space and a 0x prefix, and checks its length.
func parseHexRegister(s string, n int) ([]byte, error) {
	s = strings.Join(strings.Fields(s), "")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 2*n {
		return nil, fmt.Errorf("%d hex digits, want %d", len(s), 2*n)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return b, nil
}
