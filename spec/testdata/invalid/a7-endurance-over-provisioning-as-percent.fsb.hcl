# over_provisioning is a share of the capacity: 7 would be seven times
# the capacity, not 7%.
board "imx8mm-evk" {
  arch    = "arm64"
  storage = "mmcblk2"
  endurance {
    capacity          = "8GiB"
    pe_cycles         = 3000
    over_provisioning = 7 # ERROR: Invalid over-provisioning
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
