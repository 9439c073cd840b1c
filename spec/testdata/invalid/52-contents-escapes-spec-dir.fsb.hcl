image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }

    contents {
      dir = "../../../examples" # ERROR: Invalid input path
    }
  }
}
