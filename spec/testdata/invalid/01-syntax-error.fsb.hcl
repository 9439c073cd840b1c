# A missing "=" between an attribute and its value.
board "beaglebone-black" {
  arch    = "arm"
  console = "ttyS0,115200n8"
}

image "emmc" {
  table = "mbr"
  size  "3648MiB" # ERROR: Invalid block definition

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
