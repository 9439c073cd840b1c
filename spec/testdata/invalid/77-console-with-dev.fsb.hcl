board "beaglebone-black" {
  arch    = "arm"
  console = "/dev/ttyS0,115200n8" # ERROR: Invalid console
  storage = "mmcblk1"
}

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
