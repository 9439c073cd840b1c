image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size  = "512MiB"
    root  = true
    label = "beaglebone-black-root-filesystem-slot-a" # ERROR: Partition label too long
    filesystem { type = "ext4" }
  }
}
