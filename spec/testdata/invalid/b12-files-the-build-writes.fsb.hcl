# Files where the build puts its own: the runner's payload and the boot
# files on the root, and a file where another file needs a directory.
board "b" {
  bootloader = "extlinux"
  boot { kernel = "empty.img" }
}

image "disk" {
  size = "64MiB"
  partition "rootfs" {
    size = "32MiB"
    root = true
    filesystem { type = "ext4" }
    contents {
      file "/etc/fsbench" { content = "x" } # ERROR: A file the build writes
      file "/usr/bin/fsbench-runner" { content = "x" } # ERROR: A file the build writes
      file "/boot" { content = "x" } # ERROR: A file the build writes
      file "/opt/a" { content = "x" } # ERROR: A file where a directory must be
      file "/opt/a/b" { content = "y" }
    }
  }
  partition "data" {
    grow = true
    filesystem { type = "ext4" }
  }
}

test "fio" "t" { on = partition.data }
