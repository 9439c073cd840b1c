package storageinfo

import "fmt"

// SSRSize is the size of the SD Status register: 512 bits.
const SSRSize = 64

// SSR is an SD card's SD Status register (ACMD13; SD Physical Layer
// Simplified Specification, 4.10.2), as numbers. Its AU_SIZE is the SD
// card's allocation unit, the unit its flash translation layer manages and
// the nearest thing an SD card has to an erase block.
type SSR struct {
	BusWidth        int   // DAT_BUS_WIDTH [511:510]: 0 = 1 bit, 2 = 4 bits
	SecuredMode     bool  // [509]
	CardType        int   // SD_CARD_TYPE [495:480]
	ProtectedArea   int64 // SIZE_OF_PROTECTED_AREA [479:448]
	SpeedClass      int   // SPEED_CLASS [447:440]: a code, 0-4
	PerformanceMove int   // PERFORMANCE_MOVE [439:432]: MB/s; 0 = sequential, 0xff = infinity
	AUSize          int   // AU_SIZE [431:428]: a code
	EraseSize       int   // ERASE_SIZE [423:408]: AUs erased in ERASE_TIMEOUT
	EraseTimeout    int   // ERASE_TIMEOUT [407:402]: seconds
	EraseOffset     int   // ERASE_OFFSET [401:400]: seconds
	UHSSpeedGrade   int   // UHS_SPEED_GRADE [399:396]
	UHSAUSize       int   // UHS_AU_SIZE [395:392]: a code
	VideoSpeedClass int   // VIDEO_SPEED_CLASS [391:384]
	VSCAUSize       int   // VSC_AU_SIZE [377:368]: MB
	AppPerfClass    int   // APP_PERF_CLASS [339:336]
	PerfEnhance     int   // PERFORMANCE_ENHANCE [335:328]
	DiscardSupport  bool  // DISCARD_SUPPORT [313]
	FULESupport     bool  // FULE_SUPPORT [312]
}

// DecodeSSR decodes a 64-byte SD Status register, most significant byte
// first (the order the card sends it and sysfs prints it in).
func DecodeSSR(reg []byte) (SSR, error) {
	if len(reg) != SSRSize {
		return SSR{}, fmt.Errorf("SD Status is %d bytes, want %d", len(reg), SSRSize)
	}
	f := func(hi, lo int) int { return int(field(reg, hi, lo)) }
	return SSR{
		BusWidth: f(511, 510), SecuredMode: f(509, 509) == 1,
		CardType: f(495, 480), ProtectedArea: int64(field(reg, 479, 448)),
		SpeedClass: f(447, 440), PerformanceMove: f(439, 432),
		AUSize: f(431, 428), EraseSize: f(423, 408), EraseTimeout: f(407, 402), EraseOffset: f(401, 400),
		UHSSpeedGrade: f(399, 396), UHSAUSize: f(395, 392), VideoSpeedClass: f(391, 384),
		VSCAUSize: f(377, 368), AppPerfClass: f(339, 336), PerfEnhance: f(335, 328),
		DiscardSupport: f(313, 313) == 1, FULESupport: f(312, 312) == 1,
	}, nil
}

// ParseSSRText reads the kernel's sysfs ssr attribute (Linux 4.10 and
// later): 128 hex digits. drivers/mmc/core/sd.c stores each 32-bit word of
// the register with be32_to_cpu and prints the sixteen words with %08x in
// order, so the text is the register as the card sent it, most significant
// bit first, whatever the CPU's byte order.
func ParseSSRText(s string) ([]byte, error) {
	b, err := parseHexRegister(s, SSRSize)
	if err != nil {
		return nil, fmt.Errorf("ssr: %w", err)
	}
	return b, nil
}

// auBytes is the AU_SIZE (and UHS_AU_SIZE) code table, in bytes; 0 is not
// defined. Codes above 9 (above 4 MiB) exist from the SD 3.00 specification
// on, as the kernel's mmc_read_ssr also checks.
var auBytes = [16]int64{0, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10,
	1 << 20, 2 << 20, 4 << 20, 8 << 20, 12 << 20, 16 << 20, 24 << 20, 32 << 20, 64 << 20}

// AU is the allocation unit in bytes, or the reason the register does not
// give one. sdSpec3 is SCR SD_SPEC3: codes above 9 need it.
func (s SSR) AU(sdSpec3 bool) (int64, string) {
	switch {
	case s.AUSize == 0:
		return 0, "AU_SIZE is 0: not defined"
	case s.AUSize > 9 && !sdSpec3:
		return 0, fmt.Sprintf("AU_SIZE %d is only valid on an SD 3.00 card, and the SCR says this is older", s.AUSize)
	}
	return auBytes[s.AUSize], ""
}

// SpeedClassText is SPEED_CLASS in the marking's words.
func (s SSR) SpeedClassText() string {
	if s.SpeedClass <= 4 {
		return [...]string{"Class 0", "Class 2", "Class 4", "Class 6", "Class 10"}[s.SpeedClass]
	}
	return "reserved value"
}

// UHSGradeText is UHS_SPEED_GRADE in the marking's words.
func (s SSR) UHSGradeText() string {
	switch s.UHSSpeedGrade {
	case 0:
		return "below U1 (under 10 MB/s), or not UHS"
	case 1:
		return "U1"
	case 3:
		return "U3"
	}
	return "reserved value"
}

// SCR is an SD card's configuration register (64 bits), as numbers.
type SCR struct {
	Structure    int // SCR_STRUCTURE [63:60]
	SDSpec       int // SD_SPEC [59:56]
	SDSpec3      bool
	SDSpec4      bool
	SDSpecX      int // [41:38]
	BusWidths    int // SD_BUS_WIDTHS [51:48]
	EraseValue1s bool
}

// DecodeSCR decodes the SCR, most significant byte first (as sysfs
// prints it).
func DecodeSCR(reg []byte) (SCR, error) {
	if len(reg) != 8 {
		return SCR{}, fmt.Errorf("SCR is %d bytes, want 8", len(reg))
	}
	return SCR{
		Structure: int(field(reg, 63, 60)), SDSpec: int(field(reg, 59, 56)),
		EraseValue1s: field(reg, 55, 55) == 1, BusWidths: int(field(reg, 51, 48)),
		SDSpec3: field(reg, 47, 47) == 1, SDSpec4: field(reg, 42, 42) == 1,
		SDSpecX: int(field(reg, 41, 38)),
	}, nil
}

// Version is the Physical Layer Specification version the card claims.
func (s SCR) Version() string {
	switch {
	case s.SDSpec == 0:
		return "1.0x"
	case s.SDSpec == 1:
		return "1.10"
	case s.SDSpec != 2:
		return fmt.Sprintf("unknown (SD_SPEC %d)", s.SDSpec)
	case !s.SDSpec3:
		return "2.00"
	case s.SDSpecX > 0:
		return fmt.Sprintf("%d.xx", s.SDSpecX+4)
	case s.SDSpec4:
		return "4.xx"
	}
	return "3.0x"
}
