variable "boot_iterations" {
  type    = number
  default = "ten" # ERROR: Invalid default value for variable
}

image "disk" {
  size = "1GiB"

  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}

test "boot_time" "rootfs" {
  iterations = var.boot_iterations
}
