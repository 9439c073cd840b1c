# Forbidden outcomes are classes of the axis.
include = ["two-partitions.hcl"]

verdict {
  require "keeps synced data" {
    outcome = "power_loss.data"
    forbid  = ["LostSync"] # ERROR: Unknown outcome class
  }
}
