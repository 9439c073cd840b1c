# mkfs.fat takes at most 32768 root directory entries.
image "disk" {
  size = "64MiB"
  partition "boot" {
    size = "32MiB"
    filesystem {
      type   = "vfat"
      tuning { root_entries = 32769 } # ERROR: Invalid tuning value
    }
  }
}
