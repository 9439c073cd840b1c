# ci is a percentage.
include = ["two-partitions.hcl"]


test "fio" "seq" {
  on = partition.bench
  settle {
    ci = 0.05 # ERROR: Invalid settle block
  }
}
