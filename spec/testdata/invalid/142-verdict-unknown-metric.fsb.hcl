# A requirement names a metric its recipe reports.
include = ["two-partitions.hcl"]

verdict {
  require "fast boot" {
    metric = "boot_time.boot" # ERROR: Unknown metric
    max    = 2
  }
}
