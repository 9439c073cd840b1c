# Imported from fsbench-fsmin (repart) by fsbench import. Each block names the line it comes from.
# NOTE 1-btrfs.conf:3: Type=: repart sets GPT attribute bit 59 on a home partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOTE 2-ext4.conf:2: Type=: repart sets GPT attribute bit 59 on a srv partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOTE 2-ext4.conf:3: Format=: an ext filesystem of 1MiB has no room for a journal; mke2fs leaves it out for repart, the spec says journal = false
# NOTE 4-var.conf:2: Type=: repart sets GPT attribute bit 59 on a var partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOTE 5-tmp.conf:2: Type=: repart sets GPT attribute bit 59 on a tmp partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOTE 5-tmp.conf:4: SizeMinBytes=: 10000 bytes is no multiple of 4KiB; repart 252 rounds it as the spec says it

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "1842716KiB"
}

# 1-btrfs.conf:2: the disk systemd-repart --empty=create writes, in the order of the files' names: 1-btrfs.conf, 2-ext4.conf, 3-vfat.conf, 4-var.conf, 5-tmp.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # 1-btrfs.conf:2: 1-btrfs.conf, Type=home
  partition "1-btrfs" {
    offset = "1MiB"
    size   = "256MiB"
    type   = "home"
    label  = "home"
    filesystem {
      type  = "btrfs"
      label = "home"
    }
  }

  # 2-ext4.conf:1: 2-ext4.conf, Type=srv
  partition "2-ext4" {
    size  = "1MiB"
    type  = "srv"
    label = "srv"
    filesystem {
      type    = "ext4"
      label   = "srv"
      journal = false
    }
  }

  # 3-vfat.conf:1: 3-vfat.conf, Type=esp
  partition "3-vfat" {
    size  = "5632KiB"
    type  = "esp"
    label = "esp"
    filesystem {
      type  = "vfat"
      label = "ESP"
    }
  }

  # 4-var.conf:1: 4-var.conf, Type=var
  partition "4-var" {
    size  = "1536MiB"
    type  = "var"
    label = "var"
    filesystem {
      type  = "ext4"
      label = "var"
    }
  }

  # 5-tmp.conf:1: 5-tmp.conf, Type=tmp
  # takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least 8KiB
  partition "5-tmp" {
    grow  = true
    type  = "tmp"
    label = "tmp"
  }
}
