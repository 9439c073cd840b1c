# crash_states overwrites its log partition: it must hold no filesystem,
# and it cannot be the partition under test or the root.
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
  partition "logfs" {
    size = "300MiB"
    filesystem {
      type = "ext4"
    }
  }
}
test "crash_states" "fs" {
  on  = partition.data
  log = partition.logfs # ERROR: Partition with a filesystem overwritten
}
test "crash_states" "self" {
  on  = partition.data
  log = partition.data # ERROR: Partition used twice
}
test "crash_states" "root" {
  on  = partition.data
  log = partition.root # ERROR: Root partition overwritten
}
test "crash_states" "typo" {
  on  = partition.data
  log = partition.lgofs # ERROR: Unknown partition
}
test "crash_states" "string" {
  on  = partition.data
  log = "logfs" # ERROR: Invalid partition reference
}
test "crash_states" "missing" { # ERROR: Missing required argument
  on = partition.data
}
