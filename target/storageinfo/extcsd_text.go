package storageinfo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A row of an offset-prefixed dump: U-Boot's `mmc reg read extcsd all`
// ("160:  07 00 01 ...", decimal offsets) and some vendor kernels' debugfs.
var dumpRow = regexp.MustCompile(`^\s*(\d+):((?:\s+[0-9a-fA-F]{2})+)\s*$`)

// ParseExtCSDText reads an EXT_CSD printed as text, in one of two forms:
//
//   - the kernel's debugfs file (/sys/kernel/debug/mmcN/mmcN:RCA/ext_csd):
//     1024 hex digits on one line. Older kernels printed the bytes from
//     511 down to 0 (mmc_ext_csd_open's loop ran backwards) and both forms
//     are in the wild; reversed reports a dump in that order, told apart
//     by where a plausible EXT_CSD_REV and CSD_STRUCTURE sit;
//   - rows of bytes after their decimal offset, as U-Boot prints them.
func ParseExtCSDText(s string) (raw []byte, reversed bool, err error) {
	if raw, ok, err := parseRows(s); ok || err != nil {
		return raw, false, err
	}
	digits := strings.Join(strings.Fields(s), "")
	if len(digits) != 2*ExtCSDSize {
		return nil, false, fmt.Errorf("EXT_CSD text has %d hex digits, want %d", len(digits), 2*ExtCSDSize)
	}
	raw, err = hex.DecodeString(digits)
	if err != nil {
		return nil, false, fmt.Errorf("EXT_CSD text: %w", err)
	}
	back := slices.Clone(raw)
	slices.Reverse(back)
	switch fwd, bwd := plausibleExtCSD(raw), plausibleExtCSD(back); {
	case fwd && !bwd:
		return raw, false, nil
	case bwd && !fwd:
		return back, true, nil
	}
	return nil, false, errors.New("EXT_CSD text: cannot tell its byte order (EXT_CSD_REV and CSD_STRUCTURE look the same both ways)")
}

// plausibleExtCSD: every eMMC since 4.1 has an EXT_CSD_REV of 1 to 8 and a
// CSD_STRUCTURE of 0 to 2; in a reversed dump these bytes come from a
// reserved area that reads zero.
func plausibleExtCSD(b []byte) bool {
	return b[ecRev] >= 1 && b[ecRev] <= 8 && b[194] <= 2
}

// parseRows reads offset-prefixed rows; ok is false when s has none.
func parseRows(s string) (raw []byte, ok bool, err error) {
	raw = make([]byte, ExtCSDSize)
	seen := make([]bool, ExtCSDSize)
	for _, line := range strings.Split(s, "\n") {
		m := dumpRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		ok = true
		off, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, true, err
		}
		for i, f := range strings.Fields(m[2]) {
			if off+i >= ExtCSDSize {
				return nil, true, fmt.Errorf("EXT_CSD row %d runs past byte 511", off)
			}
			v, _ := strconv.ParseUint(f, 16, 8)
			raw[off+i], seen[off+i] = byte(v), true
		}
	}
	if !ok {
		return nil, false, nil
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, true, fmt.Errorf("EXT_CSD rows lack byte %d", i)
	}
	return raw, true, nil
}
