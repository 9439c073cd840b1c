board "q" {
  arch    = "x86_64"
  console = "ttyS0,115200n8"
  storage = "vda"
  init    = "busybox"
}

image "disk" {
  size = "768MiB"
  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
  partition "bench" {
    grow = true
    filesystem {
      type = "ext4"
    }
  }
}
