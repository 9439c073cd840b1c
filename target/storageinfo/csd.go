package storageinfo

import "fmt"

// CSDSize is the size of a CSD register in bytes (128 bits; sysfs prints
// it as 32 hex digits, most significant first).
const CSDSize = 16

// SDCSD is an SD card's CSD register (SD Physical Layer Simplified
// Specification, 5.3): version 1.0 (SDSC), 2.0 (SDHC, SDXC) or 3.0 (SDUC).
// The fields are the register's, as numbers.
type SDCSD struct {
	Structure  int // CSD_STRUCTURE [127:126]: 0 = v1.0, 1 = v2.0, 2 = v3.0
	TAAC, NSAC int
	TranSpeed  int // TRAN_SPEED [103:96], a code
	CCC        int // card command classes [95:84]
	ReadBlLen  int // READ_BL_LEN [83:80], log2 bytes
	CSize      int64
	CSizeMult  int  // v1.0 only
	EraseBlkEn bool // ERASE_BLK_EN [46]: single 512-byte blocks can be erased
	SectorSize int  // SECTOR_SIZE [45:39]: the erase sector, in write blocks, minus one
	WPGrpSize  int  // WP_GRP_SIZE [38:32]: in erase sectors, minus one
	WPGrpEn    bool
	R2WFactor  int
	WriteBlLen int // WRITE_BL_LEN [25:22], log2 bytes
	PermWP     bool
	TmpWP      bool
}

// DecodeSDCSD decodes an SD card's CSD.
func DecodeSDCSD(reg []byte) (SDCSD, error) {
	if len(reg) != CSDSize {
		return SDCSD{}, fmt.Errorf("CSD is %d bytes, want %d", len(reg), CSDSize)
	}
	c := SDCSD{
		Structure: int(field(reg, 127, 126)),
		TAAC:      int(field(reg, 119, 112)), NSAC: int(field(reg, 111, 104)),
		TranSpeed: int(field(reg, 103, 96)), CCC: int(field(reg, 95, 84)),
		ReadBlLen:  int(field(reg, 83, 80)),
		EraseBlkEn: field(reg, 46, 46) == 1, SectorSize: int(field(reg, 45, 39)),
		WPGrpSize: int(field(reg, 38, 32)), WPGrpEn: field(reg, 31, 31) == 1,
		R2WFactor: int(field(reg, 28, 26)), WriteBlLen: int(field(reg, 25, 22)),
		PermWP: field(reg, 13, 13) == 1, TmpWP: field(reg, 12, 12) == 1,
	}
	switch c.Structure {
	case 0:
		c.CSize, c.CSizeMult = int64(field(reg, 73, 62)), int(field(reg, 49, 47))
	case 1:
		c.CSize = int64(field(reg, 69, 48))
	case 2:
		c.CSize = int64(field(reg, 75, 48))
	default:
		return SDCSD{}, fmt.Errorf("SD CSD_STRUCTURE %d is reserved", c.Structure)
	}
	return c, nil
}

// Version is the CSD's version as the specification names it.
func (c SDCSD) Version() string {
	return [...]string{"1.0 (SDSC)", "2.0 (SDHC/SDXC)", "3.0 (SDUC)"}[c.Structure]
}

// Capacity is the card's user area in bytes.
func (c SDCSD) Capacity() int64 {
	if c.Structure == 0 {
		return (c.CSize + 1) << (c.CSizeMult + 2) << c.ReadBlLen
	}
	return (c.CSize + 1) * 512 << 10
}

// EraseSector is the erase sector in bytes: the unit an SDSC card erases
// when ERASE_BLK_EN is 0. Versions 2.0 and 3.0 fix it at 64 KiB, which says
// nothing of the card's allocation unit: that is in the SD Status.
func (c SDCSD) EraseSector() int64 { return int64(c.SectorSize+1) << c.WriteBlLen }

// MMCCSD is an MMC or eMMC's CSD register (JESD84-B51, 7.3). Beyond 2 GB
// the capacity and the high-capacity erase group are in the EXT_CSD; the
// erase group here is the one in force while EXT_CSD ERASE_GROUP_DEF is 0.
type MMCCSD struct {
	Structure    int // CSD_STRUCTURE [127:126]: 3 = version is in EXT_CSD
	SpecVers     int // SPEC_VERS [125:122]
	TAAC, NSAC   int
	TranSpeed    int
	CCC          int
	ReadBlLen    int
	CSize        int64 // C_SIZE [73:62]; 0xFFF: the capacity is in EXT_CSD SEC_COUNT
	CSizeMult    int
	EraseGrpSize int // ERASE_GRP_SIZE [46:42]
	EraseGrpMult int // ERASE_GRP_MULT [41:37]
	WPGrpSize    int // WP_GRP_SIZE [36:32]: in erase groups, minus one
	WPGrpEn      bool
	R2WFactor    int
	WriteBlLen   int
}

// DecodeMMCCSD decodes an MMC or eMMC's CSD.
func DecodeMMCCSD(reg []byte) (MMCCSD, error) {
	if len(reg) != CSDSize {
		return MMCCSD{}, fmt.Errorf("CSD is %d bytes, want %d", len(reg), CSDSize)
	}
	return MMCCSD{
		Structure: int(field(reg, 127, 126)), SpecVers: int(field(reg, 125, 122)),
		TAAC: int(field(reg, 119, 112)), NSAC: int(field(reg, 111, 104)),
		TranSpeed: int(field(reg, 103, 96)), CCC: int(field(reg, 95, 84)),
		ReadBlLen: int(field(reg, 83, 80)),
		CSize:     int64(field(reg, 73, 62)), CSizeMult: int(field(reg, 49, 47)),
		EraseGrpSize: int(field(reg, 46, 42)), EraseGrpMult: int(field(reg, 41, 37)),
		WPGrpSize: int(field(reg, 36, 32)), WPGrpEn: field(reg, 31, 31) == 1,
		R2WFactor: int(field(reg, 28, 26)), WriteBlLen: int(field(reg, 25, 22)),
	}, nil
}

// Capacity is the user area in bytes, when the CSD holds it: false for a
// device beyond 2 GB (C_SIZE 0xFFF), whose capacity is in EXT_CSD.
func (c MMCCSD) Capacity() (int64, bool) {
	if c.CSize == 0xfff {
		return 0, false
	}
	return (c.CSize + 1) << (c.CSizeMult + 2) << c.ReadBlLen, true
}

// EraseGroup is the CSD's erase group in bytes: (ERASE_GRP_SIZE+1) ×
// (ERASE_GRP_MULT+1) write blocks.
func (c MMCCSD) EraseGroup() int64 {
	return int64(c.EraseGrpSize+1) * int64(c.EraseGrpMult+1) << c.WriteBlLen
}

// TRAN_SPEED: bits 2:0 the rate unit, bits 6:3 a multiplier in tenths.
// SD and MMC differ in two multipliers (MMC's 0x32 is 26 MHz, SD's 25).
var (
	tranUnit    = [8]int64{100e3, 1e6, 10e6, 100e6}
	sdTranMult  = [16]int64{0, 10, 12, 13, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 70, 80}
	mmcTranMult = [16]int64{0, 10, 12, 13, 15, 20, 26, 30, 35, 40, 45, 52, 55, 60, 70, 80}
)

// tranSpeed is a TRAN_SPEED code in bit/s per data line (the bus clock).
func tranSpeed(v int, mmc bool) (int64, error) {
	mult := sdTranMult
	if mmc {
		mult = mmcTranMult
	}
	u, m := tranUnit[v&7], mult[v>>3&15]
	if u == 0 || m == 0 {
		return 0, fmt.Errorf("TRAN_SPEED 0x%02x is reserved", v)
	}
	return u * m / 10, nil
}

// TranSpeedHz is the card's highest default-mode clock, from TRAN_SPEED.
func (c SDCSD) TranSpeedHz() (int64, error) { return tranSpeed(c.TranSpeed, false) }

// TranSpeedHz is the device's highest legacy-mode clock, from TRAN_SPEED.
func (c MMCCSD) TranSpeedHz() (int64, error) { return tranSpeed(c.TranSpeed, true) }
