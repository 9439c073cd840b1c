# A LAVA qemu device attaches the disk as vda, nvme0n1 or mmcblk0: a board
# whose kernel calls its storage sda cannot run there.
board "bench" {
  storage = "sda"
  lava {
    device_type = "qemu" # ERROR: Board cannot run on this LAVA device type
  }
}
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
}
