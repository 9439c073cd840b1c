# max may not be below min.
include = ["two-partitions.hcl"]


test "fio" "seq" {
  on = partition.bench
  settle {
    ci  = "5%"
    min = 10
    max = 4 # ERROR: Invalid settle block
  }
}
