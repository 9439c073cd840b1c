package storageinfo

import "fmt"

// Manufacturer IDs are assigned by JEDEC (eMMC) and by the SD Association
// (SD) in separate lists, neither of them public. These are the names the
// Linux kernel gives the IDs it keys quirks on (drivers/mmc/core/card.h,
// CID_MANFID_*), split by the card type the kernel uses each with; any
// other ID is reported as a number only, never guessed.
var (
	mmcManufacturers = map[int]string{
		0x02: "SanDisk", 0x11: "Toshiba", 0x13: "Micron", 0x15: "Samsung",
		0x70: "Kingston", 0x90: "SK hynix", 0xfe: "Numonyx",
	}
	sdManufacturers = map[int]string{
		0x03: "SanDisk", 0x09: "ATP", 0x27: "Apacer", 0x5d: "Swissbit", 0x9f: "Kingston",
	}
)

// manufacturer names a CID manufacturer ID for a card type ("MMC", "SD").
func manufacturer(cardType string, id int) string {
	names := sdManufacturers
	if cardType == "MMC" {
		names = mmcManufacturers
	}
	if n, ok := names[id]; ok {
		return fmt.Sprintf("%s (0x%02x)", n, id)
	}
	return fmt.Sprintf("0x%02x (not in the kernel's list of manufacturers)", id)
}
