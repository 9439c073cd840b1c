package bootinit

import (
	"fmt"
	"regexp"
	"strings"
)

// RootKind says how root= names the root device.
type RootKind int

// The forms of root= that bootinit resolves.
const (
	RootNone      RootKind = iota // no root= given
	RootPath                      // /dev/NAME, a kernel device name
	RootPARTUUID                  // GPT partition GUID, or MBR SSSSSSSS-PP
	RootPARTLABEL                 // GPT partition name
	RootUUID                      // filesystem UUID from the superblock
)

// Root is a parsed root= value. Value is the device path, the label as
// given, or the UUID in lower case (they compare case-insensitively).
type Root struct {
	Kind  RootKind
	Value string
}

func (r Root) String() string {
	switch r.Kind {
	case RootPath:
		return r.Value
	case RootPARTUUID:
		return "PARTUUID=" + r.Value
	case RootPARTLABEL:
		return "PARTLABEL=" + r.Value
	case RootUUID:
		return "UUID=" + r.Value
	}
	return "(none)"
}

var (
	guidRE    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	mbrUUIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{2}$`)
	devNameRE = regexp.MustCompile(`^/dev/[A-Za-z0-9_.:-]+$`)
)

// ParseRoot parses the value of root=. Only the forms that need no udev
// are accepted; the others (major:minor numbers, /dev/disk/by-* links,
// PARTNROFF=) are refused with a message that names the accepted ones.
func ParseRoot(s string) (Root, error) {
	const accepted = "use /dev/NAME, PARTUUID=, PARTLABEL= or UUID="
	upper := strings.ToUpper(s)
	switch {
	case strings.HasPrefix(upper, "PARTUUID="):
		v := strings.ToLower(s[len("PARTUUID="):])
		if strings.Contains(v, "/") {
			return Root{}, fmt.Errorf("root=%s: PARTNROFF and other suffixes are not supported; name the partition itself", s)
		}
		if !guidRE.MatchString(v) && !mbrUUIDRE.MatchString(v) {
			return Root{}, fmt.Errorf("root=%s: a PARTUUID is a GPT GUID (8-4-4-4-12 hex digits) or an MBR SSSSSSSS-PP", s)
		}
		return Root{RootPARTUUID, v}, nil
	case strings.HasPrefix(upper, "PARTLABEL="):
		v := s[len("PARTLABEL="):]
		if v == "" {
			return Root{}, fmt.Errorf("root=%s: empty partition label", s)
		}
		return Root{RootPARTLABEL, v}, nil
	case strings.HasPrefix(upper, "UUID="):
		v := strings.ToLower(s[len("UUID="):])
		if !guidRE.MatchString(v) {
			return Root{}, fmt.Errorf("root=%s: a filesystem UUID is 8-4-4-4-12 hex digits (FAT volume ids are not supported)", s)
		}
		return Root{RootUUID, v}, nil
	case strings.HasPrefix(s, "/dev/disk/"), strings.HasPrefix(s, "/dev/mapper/"):
		return Root{}, fmt.Errorf("root=%s: the initramfs has no udev to make such links; %s", s, accepted)
	case devNameRE.MatchString(s):
		return Root{RootPath, s}, nil
	}
	return Root{}, fmt.Errorf("root=%q: not understood; %s", s, accepted)
}
