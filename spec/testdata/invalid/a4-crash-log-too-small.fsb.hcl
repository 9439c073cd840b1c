# The write log and the snapshot store must fit on the log partition;
# the plan knows its size once the partitions are placed.
board "bench" {}
image "disk" {
  size = "1GiB"
  partition "root" {
    size = "300MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
  partition "data" {
    size = "300MiB"
    filesystem {
      type = "ext4"
    }
  }
  partition "log" {
    size = "48MiB"
  }
}
test "crash_states" "big" {
  on              = partition.data
  log             = partition.log # ERROR: Partition too small
  workload        = ["fsync", "large_file"]
  large_file_size = "8MiB"
  operations      = 10
}
