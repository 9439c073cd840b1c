// Package storageinfo reports what an eMMC or SD card says about itself, on
// the board: its geometry (erase group, allocation unit, super page, the
// sizes the kernel prefers for erase and discard) and its health (life-time
// estimates, pre-EOL information), read from the card's registers (EXT_CSD,
// CSD, SD Status, SCR) and from what Linux publishes of them in sysfs. The
// runner calls Read before and after a test campaign and sets the answer
// beside the erase block the spec configured; Probe times reads across
// power-of-two boundaries, the way flashbench does, for cards that state
// nothing.
//
// It must never report a number it did not read. Every fact is either a
// value with the register or file it came from, or "not available" with the
// reason (no permission, not an MMC device, a kernel too old to publish the
// attribute, a register revision too old to have the field): never a zero
// for "unknown". Nor does it report the card's serial number or its CID,
// which identify one card: results travel off the board.
//
// It is part of the target: it links only the standard library,
// golang.org/x/sys and wire/.
package storageinfo
