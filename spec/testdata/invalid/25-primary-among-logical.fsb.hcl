# Primary partitions may follow the extended partition, but not sit
# inside it, between the logical ones.
image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size    = "512MiB"
    root    = true
    logical = true
    filesystem { type = "ext4" }
  }
  partition "data" {
    offset = "1GiB" # ERROR: Primary partition among logical ones
    size   = "512MiB"
    filesystem { type = "ext4" }
  }
  partition "bench" {
    offset  = "2GiB"
    size    = "1GiB"
    logical = true
    filesystem { type = "ext4" }
  }
}
