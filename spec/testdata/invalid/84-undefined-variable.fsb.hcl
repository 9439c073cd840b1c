variable "emmc_size" {
  type    = string
  default = "3648MiB"
}

image "emmc" {
  size = var.emmc_sise # ERROR: Reference to undeclared variable

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
