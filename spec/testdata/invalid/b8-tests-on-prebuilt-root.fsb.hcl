# The runner goes into the root filesystem: a prebuilt root cannot take it.
image "disk" {
  size = "64MiB"
  partition "rootfs" {
    size  = "16MiB"
    root  = true
    image = "empty.img" # ERROR: Tests on a prebuilt root filesystem
  }
  partition "data" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "t" { on = partition.data }
