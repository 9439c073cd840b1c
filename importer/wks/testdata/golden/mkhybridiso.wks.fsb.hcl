# Imported from mkhybridiso.wks (wks) by fsbench import. Each block names the line it comes from.
# NOTE mkhybridiso.wks:7: --timeout: fsbench's boot files boot the one entry at once; a menu's timeout has no place there
# NOT IMPORTED mkhybridiso.wks:5: --source: fsbench has no counterpart of wic's isoimage_isohybrid plugin

# mkhybridiso.wks:7: the kernel's command line
board "board" {
}

# mkhybridiso.wks:5: the disk wic writes
image "disk" {
  table = "mbr"
  align = "512B"

  # mkhybridiso.wks:5: part /boot --source isoimage_isohybrid --sourceparams=loader=grub-efi,image_name=HYBRID_ISO_IMG --ondisk cd --label HYBRIDISO
  partition "boot" {
    type = "0x0c"
    filesystem {
      type  = "vfat"
      label = "HYBRIDISO"
    }
  }
}
