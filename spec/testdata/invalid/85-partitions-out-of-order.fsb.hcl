# Explicit offsets must follow the order the partitions are written in.
image "emmc" {
  size = "3648MiB"

  partition "data" {
    offset = "1GiB"
    size   = "1GiB"
    filesystem { type = "ext4" }
  }
  partition "rootfs" {
    offset = "4MiB" # ERROR: Overlapping partitions
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
