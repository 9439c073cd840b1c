# mke2fs refuses these feature lists; ext4 gets 64bit and resize_inode
# from mke2fs.conf, so they count as given.
image "disk" {
  size = "192MiB"
  partition "a" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["^extent"] # ERROR: ext4 64bit needs extent
    }
  }
  partition "b" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["bigalloc", "^extent", "^64bit"] # ERROR: ext4 bigalloc needs extent
    }
  }
  partition "c" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["metadata_csum_seed", "^metadata_csum"] # ERROR: ext4 metadata_csum_seed needs metadata_csum
    }
  }
  partition "d" {
    size = "32MiB"
    filesystem {
      type     = "ext4"
      features = ["orphan_file"] # ERROR: ext4 orphan_file needs has_journal
      journal  = false
    }
  }
  partition "e" {
    size = "32MiB"
    filesystem {
      type     = "ext2"
      features = ["^sparse_super"] # ERROR: ext2 ^sparse_super needs ^resize_inode
    }
  }
}
