# An MBR entry with id 0 keeps a slot on an MBR table; a hybrid MBR
# mirrors partitions the MBR-only boot ROM must find, never an empty one.
image "sd" {
  size       = "64MiB"
  hybrid_mbr = ["boot"]

  partition "boot" {
    size     = "16MiB"
    type     = "esp"
    mbr_type = "0x00" # ERROR: Invalid hybrid MBR entry
  }
}
