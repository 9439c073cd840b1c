# MBR partitions have no labels for root=PARTLABEL= to find.
board "b" {
  root_by = "partlabel" # ERROR: No partition label on MBR
}
image "sd" {
  table = "mbr"
  size  = "256MiB"
  partition "root" {
    size = "128MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
