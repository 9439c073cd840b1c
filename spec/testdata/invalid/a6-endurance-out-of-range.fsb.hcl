# Each endurance value out of its range is refused at its attribute.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity          = "8GiB"
    pe_cycles         = 20000000 # ERROR: Invalid P/E cycle rating
    over_provisioning = "150%"   # ERROR: Invalid over-provisioning
    writes_per_day    = "0B"     # ERROR: Invalid host writes a day
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
