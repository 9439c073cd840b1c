# mkfs_args are read as each tool's parser reads them: attached values,
# bundled flags and abbreviated long options cannot name host files, and
# no option that reads, writes or spins is on the lists.
image "disk" {
  size = "2GiB"
  partition "a" {
    size = "256MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-d.", "-lbb.txt", "-z", "undo", "-Fd."] # ERROR: Option not allowed in mkfs_args # ERROR: Option not allowed in mkfs_args # ERROR: Option not allowed in mkfs_args # ERROR: Option not allowed in mkfs_args
    }
  }
  partition "b" {
    size = "256MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-E", "offset=1073741824", "-E", "stride=16,nodiscard", "4096"] # ERROR: Bad value in mkfs_args # ERROR: Option not allowed in mkfs_args
    }
  }
  partition "c" {
    size = "256MiB"
    filesystem {
      type      = "btrfs"
      mkfs_args = ["--root", ".", "-r.", "--rootdir=.", "-K", "--label", "x"] # ERROR: Option not allowed in mkfs_args # ERROR: Option not allowed in mkfs_args # ERROR: Option not allowed in mkfs_args # ERROR: Option set by the spec
    }
  }
  partition "d" {
    size = "512MiB"
    filesystem {
      type      = "xfs"
      mkfs_args = ["-pproto", "-d", "file,name=/etc/passwd", "-l", "logdev=/dev/sda", "-K"] # ERROR: Option not allowed in mkfs_args # ERROR: Bad value in mkfs_args # ERROR: Bad value in mkfs_args
    }
  }
  partition "e" {
    size = "256MiB"
    filesystem {
      type      = "ext4"
      mkfs_args = ["-E", "{root}", "-T", "small"] # ERROR: Placeholder in mkfs_args
    }
  }
}
