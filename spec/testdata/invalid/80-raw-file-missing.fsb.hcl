image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  raw "u-boot" {
    offset = "8KiB"
    file   = "u-boot-sunxi-with-spl.bin" # ERROR: Invalid input path
  }

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
