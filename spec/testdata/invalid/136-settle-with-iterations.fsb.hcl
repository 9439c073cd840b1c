# A settle block replaces a fixed count.
include = ["two-partitions.hcl"]


test "mount_time" "bench" {
  on         = partition.bench
  iterations = 5 # ERROR: Count and settle block together
  settle {
    ci = "5%"
  }
}
