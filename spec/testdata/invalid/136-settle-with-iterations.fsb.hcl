# A settle block replaces a fixed count.
include = ["settle-disk.hcl"]


test "mount_time" "bench" {
  on         = partition.bench
  iterations = 5 # ERROR: Count and settle block together
  settle {
    ci = "5%"
  }
}
