image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size    = "1GiB"
    logical = true
    filesystem { type = "ext4" }
  }
  partition "data" { # ERROR: Primary partition after logical ones
    size = "512MiB"
    filesystem { type = "ext4" }
  }
}
