# A settle metric must be one the runner measures.
include = ["two-partitions.hcl"]


test "boot_time" "rootfs" {
  settle {
    ci      = "5%"
    metrics = ["host_boot"] # ERROR: Unknown settle metric
  }
}
