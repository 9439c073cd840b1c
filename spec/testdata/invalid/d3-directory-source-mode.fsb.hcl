# A directory placed at a path keeps its entries' modes: a mode or an
# owner for it would say one thing and do another.
image "sd" {
  partition "boot" {
    size = "16MiB"
    filesystem { type = "vfat" }
    contents {
      file "/overlays" {
        source = "overlay"
        mode   = "0755" # ERROR: Mode or owner of a directory source
      }
    }
  }
}
