image "sdcard" {
  table        = "mbr"
  size         = "1GiB"
  hybrid_mbr   = ["rootfs"] # ERROR: GPT setting on an MBR table
  gpt_location = "1MiB"     # ERROR: GPT setting on an MBR table

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
