# mkfs_args may not make mkfs read host files.
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-E", "nodiscard", "-d", "/etc"] # ERROR: Host path in mkfs_args # ERROR: Host path in mkfs_args
    }
  }
}
