# ST STM32MP157: the boot ROM looks up the GPT partitions named fsbl1 and
# fsbl2 and reads TF-A from them; they start right after the standard
# GPT entries, at sector 34, so their alignment is one sector. The FIP
# partition takes its size from fip.bin, rounded up to 1MiB.
board "stm32mp157c-dk2" {
  arch    = "arm"
  storage = "mmcblk0"
}

image "sdcard" {
  size = "256MiB"

  partition "fsbl1" {
    align = "512B"
    size  = "256KiB"
    image = "blobs/tf-a.stm32"
  }
  partition "fsbl2" {
    align = "512B"
    size  = "256KiB"
    image = "blobs/tf-a.stm32"
  }
  partition "fip" {
    image = "blobs/fip.bin"
  }
  partition "bootfs" {
    size     = "64MiB"
    type     = "linux-generic"
    bootable = true
  }
  partition "rootfs" {
    grow = true
    type = "root"
  }
}
