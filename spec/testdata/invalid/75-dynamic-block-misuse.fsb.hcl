variable "erase_block" { default = "4MiB" }

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true

    filesystem {
      type = "ext4"

      dynamic "geometry" {
        for_each = var.erase_block # ERROR: Invalid dynamic for_each value
        content {
          erase_block = geometry.value
        }
      }
    }
  }
}
