# An image without a partition table (a raw flash image) has no place
# for what only a table records.
image "flash" {
  table        = "none"
  disk_id      = "0x1234abcd" # ERROR: Disk id without a table
  gpt_location = "1MiB"       # ERROR: Table setting without a table

  partition "uboot" {
    size     = "384KiB"
    type     = "0x83"  # ERROR: Table setting without a table
    bootable = true    # ERROR: Table setting without a table
    label    = "uboot" # ERROR: Table setting without a table
  }
  partition "rootfs" {
    size = "8MiB"
    root = true # ERROR: Root partition without a table
    filesystem { type = "ext4" }
  }
}
