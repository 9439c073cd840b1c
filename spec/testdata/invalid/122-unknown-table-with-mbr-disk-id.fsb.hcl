# Only the table is wrong; the MBR disk id is not checked against a table
# fsbench does not know.
image "sdcard" {
  table   = "msdos" # ERROR: Unsupported partition table
  size    = "1GiB"
  disk_id = "0x12345678"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
