# Imported from systemd-basic (repart) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED home.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among home.conf, root.conf, root2.conf, swap.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE home.conf:2: Type=: repart sets GPT attribute bit 59 on a home partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOTE home.conf:4: Label=: "home-always-too-long-xxxxxxxxxxxxxx-%v" is longer than a GPT name's 36 characters; repart ignores it, and so does the import
# NOT IMPORTED root.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among home.conf, root.conf, root2.conf, swap.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE root.conf:2: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "root" is the board's architecture (x86-64 without a board block), its label root-x86-64 as repart on x86-64 writes it
# NOTE root.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED root2.conf:1: Weight=: repart shares the space a disk has past the minimum sizes among home.conf, root.conf, root2.conf, swap.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE root2.conf:2: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "root" is the board's architecture (x86-64 without a board block), its label root-x86-64 as repart on x86-64 writes it
# NOTE root2.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED swap.conf:3: SizeMaxBytes=: repart shares the space a disk has past the minimum sizes among home.conf, root.conf, root2.conf, swap.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=

# home.conf:1: the disk systemd-repart --empty=create writes, in the order of the files' names: home.conf, root.conf, root2.conf, swap.conf
image "disk" {
  table = "gpt"
  size  = "136212KiB"
  align = "4KiB"

  # home.conf:1: home.conf, Type=home
  partition "home" {
    offset = "1MiB"
    size   = "10MiB"
    type   = "home"
    label  = "home-first"
  }

  # root.conf:1: root.conf, Type=root-x86-64
  partition "root" {
    size  = "10MiB"
    type  = "root"
    label = "root-x86-64"
  }

  # root2.conf:1: root2.conf, Type=root-x86-64
  partition "root2" {
    size  = "10MiB"
    type  = "root"
    label = "root-x86-64-2"
  }

  # swap.conf:1: swap.conf, Type=swap
  partition "swap" {
    size  = "10MiB"
    type  = "swap"
    label = "swap"
  }
}
