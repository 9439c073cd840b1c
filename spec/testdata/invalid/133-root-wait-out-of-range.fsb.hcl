# root_wait is a duration of one second to an hour.
board "bbb" {
  arch      = "arm"
  root_wait = "500ms" # ERROR: Invalid root_wait
}

image "disk" {
  size = "256MiB"
  partition "rootfs" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
