image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }

  raw "env" {
    offset = "3648MiB" # ERROR: Raw region does not fit
    size   = "128KiB"
    file   = "MLO"
  }
}
