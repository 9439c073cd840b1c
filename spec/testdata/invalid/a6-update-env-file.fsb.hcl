# The environment as a file needs a filesystem U-Boot keeps it in; raw
# copies need a partition without a filesystem.
board "bench" {}
image "disk" {
  size = "1GiB"
  partition "root" {
    size = "200MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
  partition "data" {
    size = "64MiB"
    filesystem {
      type = "ext4"
    }
  }
  partition "slot_a" { size = "8MiB" }
  partition "slot_b" { size = "8MiB" }
  partition "boot" {
    size = "16MiB"
    filesystem {
      type = "vfat"
    }
  }
  partition "raw" { size = "1MiB" }
  partition "log1" { size = "100MiB" }
  partition "log2" { size = "100MiB" }
}
test "update" "raw_on_fat" {
  on     = partition.data
  slot_a = partition.slot_a
  slot_b = partition.slot_b
  env    = partition.boot # ERROR: Raw environment on a filesystem
  log    = partition.log1
}
test "update" "file_on_raw" {
  on       = partition.data
  slot_a   = partition.slot_a
  slot_b   = partition.slot_b
  env      = partition.raw
  env_file = "uboot.env" # ERROR: Environment file without a filesystem
  log      = partition.log2
}
