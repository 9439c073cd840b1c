image "sdcard" {
  table         = "mbr"
  size          = "1GiB"
  extended_slot = 2 # ERROR: Extended slot without logical partitions

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}

image "emmc" {
  table         = "mbr"
  size          = "1GiB"
  extended_slot = 5 # ERROR: Invalid extended slot

  partition "data" {
    size    = "512MiB"
    logical = true
    filesystem { type = "ext4" }
  }
}

image "nand" {
  size          = "1GiB"
  extended_slot = 1 # ERROR: Extended slot on a GPT table

  partition "data" {
    size = "512MiB"
    filesystem { type = "ext4" }
  }
}
