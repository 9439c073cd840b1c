# Imported from particleos (repart) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED 00-esp.conf:7: CopyFiles=: a second tree for the filesystem's top; fsbench's contents take one dir: merge /boot into ${var.root}/efi, or give each its own TARGET
# NOTE 10-usr-verity-sig.conf:4: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "usr-verity-sig" is the board's architecture (x86-64 without a board block), its label usr-x86-64-verity-sig as repart on x86-64 writes it
# NOT IMPORTED 10-usr-verity-sig.conf:5: Label=: "%M_%A_verity_sig" has specifiers that repart expands on the machine it runs on (%v the kernel, %m the machine id, ...): write the label they give
# NOT IMPORTED 10-usr-verity-sig.conf:6: Verity=: fsbench writes no dm-verity hash tree or signature: make the signature partition with veritysetup after the build, or give it as a prebuilt image
# NOTE 10-usr-verity-sig.conf:7: VerityMatchKey=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOTE 10-usr-verity-sig.conf:8: SplitName=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOTE 11-usr-verity.conf:4: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "usr-verity" is the board's architecture (x86-64 without a board block), its label usr-x86-64-verity as repart on x86-64 writes it
# NOT IMPORTED 11-usr-verity.conf:4: Type=: repart sets GPT attribute bit 60 (read-only) on a verity hash partition unless ReadOnly=no; fsbench sets no attribute bits: set it after the build (sgdisk -A N:set:60)
# NOT IMPORTED 11-usr-verity.conf:5: Label=: "%M_%A_verity" has specifiers that repart expands on the machine it runs on (%v the kernel, %m the machine id, ...): write the label they give
# NOT IMPORTED 11-usr-verity.conf:6: Verity=: fsbench writes no dm-verity hash tree or signature: make the hash partition with veritysetup after the build, or give it as a prebuilt image
# NOTE 11-usr-verity.conf:7: VerityMatchKey=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOTE 11-usr-verity.conf:10: SplitName=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOTE 12-usr.conf:4: Type=: repart takes the type of the machine it runs on and names the partition after it; the spec's "usr" is the board's architecture (x86-64 without a board block), its label usr-x86-64 as repart on x86-64 writes it
# NOTE 12-usr.conf:4: Type=: repart sets GPT attribute bit 59 on a usr-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED 12-usr.conf:5: Label=: "%M_%A" has specifiers that repart expands on the machine it runs on (%v the kernel, %m the machine id, ...): write the label they give
# NOT IMPORTED 12-usr.conf:8: Verity=: fsbench writes no dm-verity hash tree or signature: make the data partition with veritysetup after the build, or give it as a prebuilt image
# NOTE 12-usr.conf:9: VerityMatchKey=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same
# NOT IMPORTED 12-usr.conf:10: Minimize=: systemd 253's option: repart sizes the filesystem to its contents, which the import cannot know; fsbench's size is fixed: give SizeMinBytes= and SizeMaxBytes= the size
# NOT IMPORTED 12-usr.conf:11: Compression=: systemd-repart 252 knows no option Compression= in [Partition] (a later version's, or a typo): the import follows 252's rules and leaves it out
# NOTE 12-usr.conf:12: SplitName=: acts when repart runs again (--factory-reset), writes --split files or pairs verity partitions; the image is the same

variable "root" {
  description = "the directory systemd-repart copies CopyFiles= from: its --root, the image --image names, the build's root filesystem (mkosi's, Yocto's IMAGE_ROOTFS)"
}

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "4615204KiB"
}

# 00-esp.conf:3: the disk systemd-repart --empty=create writes, in the order of the files' names: 00-esp.conf, 10-usr-verity-sig.conf, 11-usr-verity.conf, 12-usr.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # 00-esp.conf:3: 00-esp.conf, Type=esp
  partition "00-esp" {
    offset = "1MiB"
    size   = "4GiB"
    type   = "esp"
    label  = "esp"
    filesystem {
      type  = "vfat"
      label = "ESP"
    }
    contents {
      dir = "${var.root}/efi"
    }
  }

  # 10-usr-verity-sig.conf:3: 10-usr-verity-sig.conf, Type=usr-x86-64-verity-sig
  partition "10-usr-verity-sig" {
    size  = "16KiB"
    type  = "usr-verity-sig"
    label = "usr-x86-64-verity-sig"
  }

  # 11-usr-verity.conf:3: 11-usr-verity.conf, Type=usr-x86-64-verity
  partition "11-usr-verity" {
    size  = "400MiB"
    type  = "usr-verity"
    label = "usr-x86-64-verity"
  }

  # 12-usr.conf:3: 12-usr.conf, Type=usr-x86-64
  # takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least 10MiB
  partition "12-usr" {
    grow  = true
    type  = "usr"
    label = "usr-x86-64"
    filesystem {
      type  = "erofs"
      label = "usr-x86-64"
    }
    contents {
      dir = "${var.root}/usr"
    }
  }
}
