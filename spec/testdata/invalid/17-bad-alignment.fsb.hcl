# "4MB" is decimal: 4000000 bytes, not a whole number of sectors.
image "emmc" {
  size  = "3648MiB"
  align = "4MB" # ERROR: Invalid alignment

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
