image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs-a" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "rootfs-b" {
    size = "512MiB"
    filesystem { type = "ext4" }
  }
  partition "config" {
    size = "64MiB"
    filesystem { type = "ext4" }
  }
  partition "data" { # ERROR: Too many primary partitions
    size = "1GiB"
    filesystem { type = "ext4" }
  }
}
