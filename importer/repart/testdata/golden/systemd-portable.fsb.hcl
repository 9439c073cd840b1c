# Imported from systemd-portable (repart) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED 10-root.conf:10: Weight=: repart shares the space a disk has past the minimum sizes among 10-root.conf, 20-root-verity.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE 10-root.conf:11: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "root" is the board's architecture (x86-64 without a board block), its label root-x86-64 as repart on x86-64 writes it
# NOTE 10-root.conf:11: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED 10-root.conf:14: Verity=: fsbench writes no dm-verity hash tree or signature: make the data partition with veritysetup after the build, or give it as a prebuilt image
# NOTE 10-root.conf:15: VerityMatchKey=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOT IMPORTED 20-root-verity.conf:10: Weight=: repart shares the space a disk has past the minimum sizes among 10-root.conf, 20-root-verity.conf by Weight= (1000 unless set), each up to its SizeMaxBytes=; fsbench grows one partition. The spec gives each its minimum (10MiB here): the image of systemd-repart --size=auto. For a larger disk, give all but the last partition SizeMaxBytes= equal to SizeMinBytes=
# NOTE 20-root-verity.conf:11: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "root-verity" is the board's architecture (x86-64 without a board block), its label root-x86-64-verity as repart on x86-64 writes it
# NOT IMPORTED 20-root-verity.conf:11: Type=: repart sets GPT attribute bit 60 (read-only) on a verity hash partition unless ReadOnly=no; fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:60)
# NOT IMPORTED 20-root-verity.conf:12: Verity=: fsbench writes no dm-verity hash tree or signature: make the hash partition with veritysetup after the build, or give it as a prebuilt image
# NOTE 20-root-verity.conf:13: VerityMatchKey=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same

variable "root" {
  description = "the directory systemd-repart copies CopyFiles= from: its --root, the image --image names, the build's root filesystem (mkosi's, Yocto's IMAGE_ROOTFS)"
}

# 10-root.conf:10: the disk systemd-repart --empty=create writes, in the order of the files' names: 10-root.conf, 20-root-verity.conf
image "disk" {
  table = "gpt"
  size  = "21524KiB"
  align = "4KiB"

  # 10-root.conf:10: 10-root.conf, Type=root-x86-64
  partition "10-root" {
    offset = "1MiB"
    size   = "10MiB"
    type   = "root"
    label  = "root-x86-64"
    filesystem {
      type  = "erofs"
      label = "root-x86-64"
    }
    contents {
      dir = var.root
    }
  }

  # 20-root-verity.conf:10: 20-root-verity.conf, Type=root-x86-64-verity
  partition "20-root-verity" {
    size  = "10MiB"
    type  = "root-verity"
    label = "root-x86-64-verity"
  }
}
