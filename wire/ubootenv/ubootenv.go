// Package ubootenv reads and writes U-Boot's environment as U-Boot and
// libubootenv (fw_printenv, fw_setenv) keep it on a block device: a
// CRC-32 (IEEE, little-endian) of the data, with a redundant environment
// a flags byte, then the variables as NUL-terminated name=value strings,
// an empty string ending them, the rest of the copy padding. With two
// copies, a write goes to the copy that is not current, with a flags
// byte one higher; at boot the valid copy with the higher flags wins
// (U-Boot's env_import_redund), so a power cut during a write leaves the
// other copy in charge. The runner seeds an environment and judges what
// a power cut left of it; the host tests it against mkenvimage and
// fw_printenv.
//
// It is part of the wire: it links only the standard library.
package ubootenv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
)

// Copy is what one copy of the environment holds.
type Copy struct {
	Valid bool // its CRC matches
	Flags byte // the redundant format's counter
	Vars  map[string]string
}

// header is the bytes before the data: the CRC, and the flags byte of a
// redundant copy.
func header(redundant bool) int {
	if redundant {
		return 5
	}
	return 4
}

// Parse reads one copy of size len(b).
func Parse(b []byte, redundant bool) Copy {
	h := header(redundant)
	if len(b) <= h {
		return Copy{}
	}
	data := b[h:]
	c := Copy{Valid: binary.LittleEndian.Uint32(b) == crc32.ChecksumIEEE(data)}
	if redundant {
		c.Flags = b[4]
	}
	if !c.Valid {
		return c
	}
	c.Vars = map[string]string{}
	for len(data) > 0 && data[0] != 0 {
		end := bytes.IndexByte(data, 0)
		if end < 0 {
			end = len(data)
		}
		if name, value, ok := strings.Cut(string(data[:end]), "="); ok {
			c.Vars[name] = value
		}
		data = data[min(end+1, len(data)):]
	}
	return c
}

// Current is the copy U-Boot uses of two (env_import_redund): the valid
// one, or of two valid ones the one whose flags are higher, counting 0
// after 255 as higher. which is 0 or 1, or -1 when neither is valid (U-Boot
// then falls back to its built-in default environment).
func Current(a, b Copy) (c Copy, which int) {
	switch {
	case !a.Valid && !b.Valid:
		return Copy{}, -1
	case !b.Valid:
		return a, 0
	case !a.Valid:
		return b, 1
	case a.Flags == 255 && b.Flags == 0:
		return b, 1
	case b.Flags == 255 && a.Flags == 0:
		return a, 0
	case b.Flags > a.Flags:
		return b, 1
	}
	return a, 0
}

// Encode writes vars as one copy of size bytes, the padding zeros, as
// mkenvimage does; flags goes into a redundant copy.
func Encode(vars map[string]string, size int, redundant bool, flags byte) ([]byte, error) {
	h := header(redundant)
	names := make([]string, 0, len(vars))
	for k := range vars {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(vars[k], 0) {
			return nil, fmt.Errorf("environment variable %q: a name holds neither '=' nor NUL, a value no NUL", k)
		}
		names = append(names, k)
	}
	sort.Strings(names)
	out := make([]byte, size)
	at := h
	for _, k := range names {
		s := k + "=" + vars[k]
		if at+len(s)+2 > size {
			return nil, errors.New("the variables do not fit the environment's size")
		}
		at += copy(out[at:], s) + 1
	}
	if redundant {
		out[4] = flags
	}
	binary.LittleEndian.PutUint32(out, crc32.ChecksumIEEE(out[h:]))
	return out, nil
}
