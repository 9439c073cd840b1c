# A partition's own align holds its explicit offset to it.
image "sdcard" {
  size = "1GiB"

  partition "rootfs" {
    offset = "2MiB" # ERROR: Misaligned partition
    align  = "4MiB"
    size   = "512MiB"
  }
}
