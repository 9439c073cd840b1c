# On a real board's device type, LAVA writes the image and U-Boot boots it
# from its own boot files: the board needs a boot block.
board "bbb" {
  arch       = "arm"
  console    = "ttyS0,115200n8"
  storage    = "mmcblk1"
  bootloader = "extlinux"
  lava {
    device_type = "beaglebone-black" # ERROR: Board cannot run on this LAVA device type
    tags        = ["emmc"]
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
