image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "bandwidth" {
  on      = partition.bench
  bs      = ["4KiB", 4096, "4MiB"] # ERROR: Duplicate value in sweep
  nrfiles = 4
}
