board "qemu-x86_64" {
  arch    = "x86_64"
  storage = "vda"
}

imgae "disk" { # ERROR: Unsupported block type
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
