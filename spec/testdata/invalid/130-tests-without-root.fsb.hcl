# The runner goes into the root filesystem: tests need a root partition.
board "b" {
  arch    = "x86_64"
  storage = "vda"
}

image "disk" {
  size = "256MiB"
  partition "data" {
    size = "128MiB"
    filesystem { type = "ext4" }
  }
}

test "fio" "bandwidth" { on = partition.data } # ERROR: Tests without a root filesystem
