# A metric requirement gives a bound.
include = ["two-partitions.hcl"]

verdict {
  require "fast boot" { # ERROR: Invalid requirement
    metric = "boot_time.host_boot"
  }
}
