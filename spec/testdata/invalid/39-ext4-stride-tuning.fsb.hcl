image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "1GiB"
    root = true

    filesystem {
      type       = "ext4"
      block_size = "1KiB"
      tuning {
        stride       = "128MiB" / "1KiB" # ERROR: Invalid tuning value
        stripe_width = 131072
      }
    }
  }
}
