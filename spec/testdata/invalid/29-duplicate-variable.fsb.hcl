variable "erase_block" {
  type    = string
  default = "4MiB"
}

variable "erase_block" { # ERROR: Duplicate variable
  type    = string
  default = "8MiB"
}

image "emmc" {
  size  = "3648MiB"
  align = var.erase_block

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
