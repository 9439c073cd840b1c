# Imported from systemd-sector (repart) by fsbench import. Each block names the line it comes from.
# NOTE a.conf:2: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "root" is the board's architecture (x86-64 without a board block), its label root-x86-64 as repart on x86-64 writes it
# NOTE a.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED b.conf:3: Weight=: repart shares the space a disk has past the minimum sizes among b.conf, c.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOT IMPORTED c.conf:3: Weight=: repart shares the space a disk has past the minimum sizes among b.conf, c.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=

# a.conf:1: the disk systemd-repart --empty=create writes, in the order of the files' names: a.conf, b.conf, c.conf
image "disk" {
  table = "gpt"
  size  = "36884KiB"
  align = "4KiB"

  # a.conf:1: a.conf, Type=root-x86-64
  partition "a" {
    offset = "1MiB"
    size   = "15MiB"
    type   = "root"
    label  = "root-x86-64"
  }

  # b.conf:1: b.conf, Type=linux-generic
  partition "b" {
    size  = "10MiB"
    type  = "linux-generic"
    label = "linux-generic"
  }

  # c.conf:1: c.conf, Type=linux-generic
  partition "c" {
    size  = "10MiB"
    type  = "linux-generic"
    label = "linux-generic-2"
  }
}
