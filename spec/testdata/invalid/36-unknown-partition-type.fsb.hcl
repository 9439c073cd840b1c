image "emmc" {
  size = "3648MiB"

  partition "boot" {
    size = "64MiB"
    type = "esp"
    filesystem { type = "vfat" }
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    type = "linux-root-x86_64" # ERROR: Invalid partition type
    filesystem { type = "ext4" }
  }
}
