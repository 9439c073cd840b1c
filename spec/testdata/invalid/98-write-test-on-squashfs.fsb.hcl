# A read-only filesystem cannot host a test that writes; reading tests
# (mkfs_stats) are fine there.
image "disk" {
  size = "256MiB"

  partition "rootfs" {
    size = "64MiB"
    root = true
    filesystem { type = "ext4" }
  }

  partition "data" {
    size = "64MiB"
    filesystem { type = "squashfs" }
  }
}

test "fio" "ro" {
  on = partition.data # ERROR: Test writes to a read-only filesystem
}

test "mkfs_stats" "ro" {
  on = partition.data
}
