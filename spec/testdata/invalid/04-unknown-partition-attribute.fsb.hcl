image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size  = "512MiB"
    root  = true
    lable = "root-a" # ERROR: Unsupported argument
    filesystem { type = "ext4" }
  }
}
