# An image written to the start of a larger eMMC: a backup GPT at the
# image's end would sit in the middle of the device, where no tool looks
# for one. `sgdisk -e` on the board writes it at the device's real end.
board "generic-emmc" {
  storage = "mmcblk0"
}

image "emmc" {
  size       = "128MiB"
  gpt_backup = false

  partition "rootfs" {
    size = "96MiB"
    type = "root-x86-64"
  }
}
