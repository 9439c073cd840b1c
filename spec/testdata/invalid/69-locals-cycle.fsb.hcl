locals {
  rootfs_size = local.data_size / 2 # ERROR: Cycle in locals
  data_size   = local.rootfs_size * 4 # ERROR: Cycle in locals
}

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = local.rootfs_size
    root = true
    filesystem { type = "ext4" }
  }
  partition "data" {
    size = local.data_size
    filesystem { type = "ext4" }
  }
}
