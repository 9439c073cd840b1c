# A type GUID has no MBR id of its own: the hybrid entry needs mbr_type.
image "sdcard" {
  size       = "1GiB"
  hybrid_mbr = ["boot"] # ERROR: Hybrid MBR entry without an MBR id

  partition "boot" {
    size = "64MiB"
    type = "3de21764-95bd-54bd-a5c3-4abe786f38a8"
  }
  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
