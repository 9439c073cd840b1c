# A warning, with a hybrid entry that names a partition twice.
image "sdcard" {
  size       = "1GiB"
  gpt_backup = false            # WARNING: No backup GPT
  hybrid_mbr = ["boot", "boot"] # ERROR: Duplicate hybrid MBR entry

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
