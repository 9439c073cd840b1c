# The eMMC datasheet says 1.5GB; that is not a whole number of sectors.
image "emmc" {
  table = "mbr"
  size  = "1.5GB" # ERROR: Image size not a whole number of sectors

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
