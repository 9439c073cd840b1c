# A short fio run: 64MiB spread over the default 50 files is less than one
# 4MiB block per file.
image "disk" {
  size = "1GiB"

  partition "rootfs" {
    size = "400MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "bandwidth" { # ERROR: Files smaller than one block
  on   = partition.bench
  size = "64MiB"
}
