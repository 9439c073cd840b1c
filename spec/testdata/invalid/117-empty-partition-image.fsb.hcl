# A partition takes its size from its image file, and this one is empty.
image "sdcard" {
  table = "mbr"
  size  = "1GiB"

  partition "boot" {
    image = "empty.img" # ERROR: Empty partition image
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

image "emmc" {
  size = "1GiB"

  partition "boot" {
    image = "empty.img" # ERROR: Empty partition image
  }
}
