# A LAVA tag is a name: no spaces, quotes or YAML syntax.
board "bench" {
  lava {
    device_type = "qemu"
    tags        = ["tcg", "two words"] # ERROR: Invalid LAVA tag
  }
}
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
}
