# The kernel counts a device's capacity in 512-byte sectors: a vendor's
# rounded decimal figure is not one.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity  = "7.5GB" # ERROR: Invalid flash capacity
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
