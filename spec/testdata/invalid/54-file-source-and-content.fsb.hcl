image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }

    contents {
      dir = "rootfs"

      file "/etc/motd" {
        source  = "overlay/motd"
        content = "Welcome to the bench board\n" # ERROR: Conflicting file content
      }
    }
  }
}
