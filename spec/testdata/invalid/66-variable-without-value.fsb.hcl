variable "rootfs_tar" { # ERROR: No value for required variable
  type        = string
  description = "Buildroot's rootfs.tar."
}

image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
    contents { tar = var.rootfs_tar }
  }
}
