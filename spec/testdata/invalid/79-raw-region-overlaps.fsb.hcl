# The AM335x ROM reads MLO from 128KiB; the partition was moved down over it.
image "emmc" {
  table = "mbr"
  size  = "3648MiB"
  align = "64KiB"

  raw "mlo" {
    offset = "128KiB" # ERROR: Raw region overlaps
    size   = "128KiB"
    file   = "MLO"
  }

  partition "rootfs" {
    offset = "192KiB"
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
