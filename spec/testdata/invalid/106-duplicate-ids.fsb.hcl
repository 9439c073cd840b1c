# PARTUUIDs, filesystem UUIDs and mount points must name one thing each,
# and a partition needs a type the table keeps.
image "disk" {
  size = "1GiB"
  partition "rootfs" {
    size = "256MiB"
    root = true
    uuid = "11111111-2222-4333-8444-555555555555"
    filesystem {
      type = "ext4"
      uuid = "66666666-7777-4888-9999-aaaaaaaaaaaa"
    }
  }
  partition "data" {
    size = "256MiB"
    uuid = "11111111-2222-4333-8444-555555555555" # ERROR: Duplicate partition UUID
    filesystem {
      type       = "ext4"
      uuid       = "66666666-7777-4888-9999-AAAAAAAAAAAA" # ERROR: Duplicate filesystem UUID
      mountpoint = "/data"
    }
  }
  partition "more" {
    size = "128MiB"
    type = "00000000-0000-0000-0000-000000000000" # ERROR: Invalid partition type
    filesystem {
      type       = "ext4"
      mountpoint = "/data" # ERROR: Duplicate mountpoint
    }
  }
}
