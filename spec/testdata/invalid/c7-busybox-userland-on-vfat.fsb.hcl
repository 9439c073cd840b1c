# Busybox's commands are symlinks, which FAT cannot keep.
image "disk" {
  size = "128MiB"
  partition "rootfs" {
    size = "64MiB"
    root = true
    filesystem { type = "vfat" }
    contents {
      userland = "busybox" # ERROR: Userland on a filesystem without symlinks
    }
  }
}
