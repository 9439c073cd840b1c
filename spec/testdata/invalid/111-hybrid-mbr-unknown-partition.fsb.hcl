image "sdcard" {
  size       = "1GiB"
  hybrid_mbr = ["boot", "rotfs"] # ERROR: Unknown partition in hybrid MBR

  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
