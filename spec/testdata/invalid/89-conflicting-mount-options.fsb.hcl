image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "f2fs"
      mount = ["noatime", "background_gc=on", "relatime"] # ERROR: conflicting mount options
    }
  }
}
