# A board's flash has one rating.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity  = "8GiB"
    pe_cycles = 3000
  }
  endurance { # ERROR: Duplicate endurance block
    capacity  = "8GiB"
    pe_cycles = 30000
  }
}
image "disk" {
  size = "256MiB"
  partition "root" {
    size = "128MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
}
