image "sdcard" {
  size = "1GiB"

  partition "boot" {
    size     = "64MiB"
    mbr_type = "0x0c" # ERROR: MBR type without a hybrid MBR entry
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
