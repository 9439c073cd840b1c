# Erased NOR flash reads 0xff, a disk image zeros: nothing else.
image "flash" {
  table = "none"
  fill  = "0x7f" # ERROR: Invalid fill byte

  partition "uboot" {
    size = "384KiB"
  }
}
