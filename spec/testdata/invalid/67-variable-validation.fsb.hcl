variable "erase_block" {
  type    = string
  default = "4MiB"

  validation {
    condition     = size(var.erase_block) >= size("128KiB") && size(var.erase_block) <= size("64MiB") # ERROR: Invalid value for variable
    error_message = "An eMMC erase block lies between 128KiB and 64MiB."
  }
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
