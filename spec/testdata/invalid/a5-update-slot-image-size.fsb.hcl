# When slot A has a filesystem, the update's images are that filesystem
# at the slot's size: an image_size of another size contradicts it, and
# slot B must not be of another type; a snapshot store smaller than an
# image cannot hold a state's writes beyond its prefix.
board "bench" {}
image "disk" {
  size = "1GiB"
  partition "root" {
    size = "200MiB"
    root = true
    filesystem {
      type = "ext4"
    }
  }
  partition "data" {
    size = "64MiB"
    filesystem {
      type = "ext4"
    }
  }
  partition "slot_a" {
    size = "16MiB"
    filesystem {
      type = "ext4"
    }
  }
  partition "slot_b" {
    size = "16MiB"
    filesystem {
      type = "ext4"
    }
  }
  partition "slot_c" {
    size = "16MiB"
    filesystem {
      type = "ext2"
    }
  }
  partition "env" { size = "1MiB" }
  partition "log" { size = "200MiB" }
  partition "log2" { size = "200MiB" }
  partition "log3" { size = "200MiB" }
}
test "update" "sized" {
  on         = partition.data
  slot_a     = partition.slot_a
  slot_b     = partition.slot_b
  env        = partition.env
  log        = partition.log
  image_size = "8MiB" # ERROR: Image size beside a slot filesystem
}
test "update" "mixed" {
  on     = partition.data
  slot_a = partition.slot_a
  slot_b = partition.slot_c # ERROR: Slots of two filesystem types
  env    = partition.env
  log    = partition.log2
}
test "update" "snapshot" {
  on            = partition.data
  slot_a        = partition.slot_a
  slot_b        = partition.slot_b
  env           = partition.env
  log           = partition.log3
  snapshot_size = "8MiB" # ERROR: Snapshot store smaller than the image
}
