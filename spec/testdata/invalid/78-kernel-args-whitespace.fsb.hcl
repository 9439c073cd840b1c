board "beaglebone-black" {
  arch        = "arm"
  console     = "ttyS0,115200n8"
  storage     = "mmcblk1"
  kernel_args = ["quiet", "loglevel=3 init=/sbin/init"] # ERROR: Invalid kernel arguments
}

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
