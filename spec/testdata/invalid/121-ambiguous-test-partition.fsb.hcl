# Both images have a "data" partition, and the booted one (with the root
# partition) has none: the test cannot tell which.
image "emmc" {
  size = "1GiB"
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

image "sd" {
  size = "1GiB"
  partition "data" {
    size = "256MiB"
    filesystem { type = "ext4" }
  }
}

image "usb" {
  size = "1GiB"
  partition "data" {
    size = "256MiB"
    filesystem { type = "ext4" }
  }
}

test "fio" "seq" {
  on = partition.data # ERROR: Ambiguous partition
}
