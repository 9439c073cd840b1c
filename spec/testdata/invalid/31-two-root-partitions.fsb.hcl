image "emmc" {
  size = "3648MiB"

  partition "rootfs-a" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "rootfs-b" {
    size = "512MiB"
    root = true # ERROR: More than one root partition
    filesystem { type = "ext4" }
  }
}
