# Imported from systemd-copy-blocks (repart) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED esp.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among esp.conf, root.conf, usr.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOT IMPORTED root.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among esp.conf, root.conf, usr.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE root.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED root.conf:5: MakeDirectories=: fsbench makes no empty directories of its own: put /usr /efi in the partition's contents directory
# NOT IMPORTED usr.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among esp.conf, root.conf, usr.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOT IMPORTED usr.conf:5: ReadOnly=: repart sets GPT attribute bit 60, which makes systemd mount the partition read-only; fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:60), or mount it read-only with the filesystem's mount options

# esp.conf:1: the disk systemd-repart --empty=create writes, in the order of the files' names: esp.conf, root.conf, usr.conf
image "disk" {
  table = "gpt"
  size  = "31764KiB"
  align = "4KiB"

  # esp.conf:1: esp.conf, Type=esp
  partition "esp" {
    offset = "1MiB"
    size   = "10MiB"
    type   = "esp"
    label  = "esp"
    filesystem {
      type  = "vfat"
      label = "ESP"
    }
  }

  # root.conf:1: root.conf, Type=root-x86-64
  partition "root" {
    size  = "10MiB"
    type  = "root-x86-64"
    label = "root-x86-64"
    filesystem {
      type  = "ext4"
      label = "root-x86-64"
    }
  }

  # usr.conf:1: usr.conf, Type=usr-x86-64
  partition "usr" {
    size  = "10MiB"
    type  = "usr-x86-64"
    label = "usr-x86-64"
    filesystem {
      type  = "ext4"
      label = "usr-x86-64"
    }
  }
}
