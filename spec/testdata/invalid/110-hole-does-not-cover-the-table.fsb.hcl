# A loader written over the MBR must leave bytes 440-511 to the table;
# this hole stops 12 bytes short.
image "sdcard" {
  table = "mbr"
  size  = "1GiB"

  raw "bootloader" {
    offset = 0 # ERROR: Raw region overlaps
    size   = "512KiB"
    file   = "MLO"
    holes  = [{ offset = 440, size = 60 }]
  }

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
