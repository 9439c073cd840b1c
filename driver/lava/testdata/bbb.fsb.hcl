# A BeagleBone Black in a LAVA lab: the lab's flasher writes the image to
# its SD card, and U-Boot boots Debian's kernel from the image's
# extlinux.conf.

board "bbb" {
  arch       = "arm"
  console    = "ttyS0,115200n8"
  storage    = "mmcblk0"
  bootloader = "extlinux"

  boot {}

  lava {
    device_type = "beaglebone-black"
    tags        = ["sd-mux", "sandisk-16g"]
  }
}

image "sd" {
  table = "mbr"
  size  = "256MiB"

  partition "rootfs" {
    size = "160MiB"
    root = true

    filesystem {
      type = "ext4"
    }

    contents {
      userland = "busybox"
    }
  }

  partition "bench" {
    grow = true

    filesystem {
      type       = "f2fs"
      mountpoint = "/mnt/bench"
    }
  }
}

test "boot_time" "rootfs" {
  iterations = 5
}

test "fio" "seq" {
  on      = partition.bench
  rw      = ["read", "write"]
  bs      = ["1MiB"]
  size    = "64MiB"
  nrfiles = 4
}
