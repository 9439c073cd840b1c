# The image is written to the board's storage: a device smaller than the
# image cannot hold it. The plan knows the image's size once the
# partitions are placed.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity  = "128MiB" # ERROR: Flash capacity smaller than the image
    pe_cycles = 3000
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
