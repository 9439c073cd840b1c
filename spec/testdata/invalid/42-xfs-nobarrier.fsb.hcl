image "disk" {
  size = "2GiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type  = "xfs"
      mount = ["noatime", "nobarrier"] # ERROR: xfs refuses nobarrier
    }
  }
}
