# mke2fs -g takes a multiple of 8 blocks per group, from 256.
image "disk" {
  size = "64MiB"
  partition "p" {
    size = "32MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-g", "260"] # ERROR: Bad value in mkfs_args
    }
  }
}
