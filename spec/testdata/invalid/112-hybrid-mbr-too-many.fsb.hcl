# The fourth MBR entry is the protective one.
image "sdcard" {
  size       = "1GiB"
  hybrid_mbr = ["a", "b", "c", "d"] # ERROR: Too many hybrid MBR entries

  partition "a" { size = "16MiB" }
  partition "b" { size = "16MiB" }
  partition "c" { size = "16MiB" }
  partition "d" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
}
