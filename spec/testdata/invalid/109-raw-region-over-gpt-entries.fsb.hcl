# Rockchip's idbloader at 32KiB needs the entry array moved out of its way
# (gpt_location = "1MiB"); at 16KiB, a loader lands on the standard array.
image "emmc" {
  size = "1GiB"

  raw "idbloader" {
    offset = "16KiB" # ERROR: Raw region overlaps
    size   = "64KiB"
    file   = "MLO"
  }

  partition "rootfs" {
    offset = "16MiB"
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
