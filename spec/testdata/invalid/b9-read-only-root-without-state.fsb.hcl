# On a read-only root, the runner keeps its progress on a writable
# partition no test uses; here the only one is the test's.
image "disk" {
  size = "64MiB"
  partition "rootfs" {
    size = "16MiB"
    root = true
    filesystem { type = "squashfs" } # ERROR: No writable partition for the runner's progress
  }
  partition "data" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "t" { on = partition.data }
