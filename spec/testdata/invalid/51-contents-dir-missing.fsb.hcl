# The Buildroot output was never copied next to the spec.
image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }

    contents {
      dir = "output/target" # ERROR: Invalid input path
    }
  }
}
