# The environment's file is a plain path inside the filesystem: it goes
# into fw_env.config and U-Boot's load command.
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
  partition "log3" { size = "100MiB" }
}
test "update" "escaping" {
  on       = partition.data
  slot_a   = partition.slot_a
  slot_b   = partition.slot_b
  env      = partition.boot
  env_file = "../uboot.env" # ERROR: Invalid environment file name
  log      = partition.log3
}
