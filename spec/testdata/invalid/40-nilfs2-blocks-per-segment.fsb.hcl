image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size = "1GiB"

    filesystem {
      type = "nilfs2"
      tuning {
        blocks_per_segment = 24 # ERROR: Invalid tuning value
      }
    }
  }
  partition "log" {
    size = "512MiB"

    filesystem {
      type = "nilfs2"
      tuning {
        blocks_per_segment = 8 # ERROR: Invalid tuning value
      }
    }
  }
}
