# mkfs_args may not make mkfs read host files.
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-E", "nodiscard", "-d", "/etc"] # ERROR: Option not allowed in mkfs_args
    }
  }
}
