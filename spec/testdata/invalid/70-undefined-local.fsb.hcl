locals {
  erase_block = "4MiB"
}

image "emmc" {
  size  = "3648MiB"
  align = local.erase_blocks # ERROR: Reference to undefined local

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
