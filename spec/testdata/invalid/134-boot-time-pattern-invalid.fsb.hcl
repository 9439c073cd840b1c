# The boot marks' patterns are RE2 regular expressions.
image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

test "boot_time" "rootfs" {
  banner_pattern = "SPL (v" # ERROR: Invalid regular expression
}
