# An outcome test has no mean to settle.
include = ["two-partitions.hcl"]


test "dm_flakey" "bench" {
  on = partition.bench
  settle { # ERROR: Test cannot settle
    ci = "5%"
  }
}
