# A warning from decoding and an error from planning must come out in
# source order.
image "disk" {
  size = "2GiB"

  partition "rootfs" {
    size = "256MiB" # ERROR: xfs partition too small
    root = true
    filesystem { type = "xfs" }
  }
  partition "boot" {
    size     = "64MiB"
    bootable = true # WARNING: Bootable flag on GPT
    filesystem { type = "vfat" }
  }
}
