# The chain of EBRs runs forward: logical partitions lie in the order
# they are declared.
image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "data" {
    offset  = "1GiB"
    size    = "1GiB"
    logical = true
    filesystem { type = "ext4" }
  }
  partition "rootfs" {
    offset  = "4MiB" # ERROR: Logical partitions out of order
    size    = "512MiB"
    root    = true
    logical = true
    filesystem { type = "ext4" }
  }
}
