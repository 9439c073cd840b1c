# One board boots one root filesystem; the kernel command line can only
# point at one of them.
image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

image "sd" {
  size = "8GiB"

  partition "recovery" {
    size = "1GiB"
    root = true # ERROR: More than one root partition
    filesystem { type = "ext4" }
  }
}
