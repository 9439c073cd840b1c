# An outcome test has no mean to settle.
include = ["settle-disk.hcl"]


test "dm_flakey" "bench" {
  on = partition.bench
  settle { # ERROR: Test cannot settle
    ci = "5%"
  }
}
