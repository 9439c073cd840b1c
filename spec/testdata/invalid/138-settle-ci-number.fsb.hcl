# ci is a percentage.
include = ["settle-disk.hcl"]


test "fio" "seq" {
  on = partition.bench
  settle {
    ci = 0.05 # ERROR: Invalid settle block
  }
}
