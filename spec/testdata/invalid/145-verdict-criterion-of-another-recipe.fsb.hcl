# A requirement's criterion is one its recipe answers.
include = ["two-partitions.hcl"]

verdict {
  require "keeps synced data on a lying card" {
    outcome   = "power_loss.data"
    criterion = "survives a device that ignores flush" # ERROR: Unknown criterion
    forbid    = ["LostSynced", "Corrupt"]
  }
}
