# gpt_location moved the entry array to 2MiB: partitions lie after it.
image "sdcard" {
  size         = "1GiB"
  gpt_location = "2MiB"

  partition "rootfs" {
    offset = "1MiB" # ERROR: Overlapping partitions
    size   = "512MiB"
    root   = true
    filesystem { type = "ext4" }
  }
}
