# A files entry would be placed over the cmdline.txt the boot block writes.
board "rpi4" {
  arch       = "arm64"
  bootloader = "rpi"
  boot {
    partition = partition.boot
    kernel    = "empty.img"
  }
}

image "sdcard" {
  size  = "256MiB"
  table = "mbr"
  partition "boot" {
    size = "64MiB"
    filesystem { type = "vfat" }
    contents {
      file "/cmdline.txt" { # ERROR: A file the boot block writes
        content = "root=/dev/mmcblk0p2"
      }
    }
  }
  partition "rootfs" {
    grow = true
    root = true
    filesystem { type = "ext4" }
  }
}
