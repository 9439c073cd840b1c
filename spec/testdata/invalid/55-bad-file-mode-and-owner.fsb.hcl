image "emmc" {
  size = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }

    contents {
      file "/etc/init.d/S99bench" {
        content = "#!/bin/sh\nexec /usr/bin/bench\n"
        mode    = "755x" # ERROR: Invalid file mode
        owner   = "root:root" # ERROR: Invalid file owner
      }
    }
  }
}
