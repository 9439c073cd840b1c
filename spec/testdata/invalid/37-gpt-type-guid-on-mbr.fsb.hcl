image "emmc" {
  table = "mbr"
  size  = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    type = "0fc63daf-8483-4772-8e79-3d69d8477de4" # ERROR: Invalid partition type
    filesystem { type = "ext4" }
  }
}
