# 128-byte inodes have no room for inline data or a project id, and
# inodes as large as inode_ratio would take the whole filesystem.
image "disk" {
  size = "160MiB"
  partition "a" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["inline_data"]
      tuning { inode_size = 128 } # ERROR: 128-byte inodes too small for inline_data
    }
  }
  partition "b" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["quota", "project"]
      tuning { inode_size = 128 } # ERROR: 128-byte inodes too small for project
    }
  }
  partition "c" {
    size = "32MiB"
    filesystem {
      type = "ext4"
      tuning {
        inode_size  = 1024
        inode_ratio = "1KiB" # ERROR: ext4 inodes fill the filesystem
      }
    }
  }
  partition "d" {
    size = "32MiB"
    filesystem {
      type = "ext4"
      tuning { inode_size = 4096 } # ERROR: ext4 inodes fill the filesystem
    }
  }
}
