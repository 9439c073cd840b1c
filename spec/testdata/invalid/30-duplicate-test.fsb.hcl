image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "bandwidth" {
  on = partition.bench
}

test "fio" "bandwidth" { # ERROR: Duplicate test
  on = partition.bench
  rw = ["randrw"]
}
