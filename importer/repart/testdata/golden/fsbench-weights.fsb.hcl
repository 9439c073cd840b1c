# Imported from fsbench-weights (repart) by fsbench import. Each block names the line it comes from.
# NOTE 2-root.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED 2-root.conf:3: Weight=: repart shares the space a disk has past the minimum sizes among 2-root.conf, 3-home.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (64MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE 3-home.conf:2: Type=: repart sets GPT attribute bit 59 on a home partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED 3-home.conf:3: Weight=: repart shares the space a disk has past the minimum sizes among 2-root.conf, 3-home.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=

# 1-esp.conf:2: the disk systemd-repart --empty=create writes, in the order of the files' names: 1-esp.conf, 2-root.conf, 3-home.conf
image "disk" {
  table = "gpt"
  size  = "109588KiB"
  align = "4KiB"

  # 1-esp.conf:2: 1-esp.conf, Type=esp
  partition "1-esp" {
    offset = "1MiB"
    size   = "32MiB"
    type   = "esp"
    label  = "esp"
    filesystem {
      type  = "vfat"
      label = "ESP"
    }
  }

  # 2-root.conf:1: 2-root.conf, Type=root-x86-64
  partition "2-root" {
    size  = "64MiB"
    type  = "root-x86-64"
    label = "root-x86-64"
  }

  # 3-home.conf:1: 3-home.conf, Type=home
  partition "3-home" {
    size  = "10MiB"
    type  = "home"
    label = "home"
  }
}
