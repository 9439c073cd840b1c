# Weights name the verdict's criteria.
include = ["two-partitions.hcl"]

verdict {
  weights = { "boot speed" = 2 } # ERROR: Unknown criterion
}
