# Names FAT cannot keep: mcopy refuses them or stores another name.
image "disk" {
  size = "64MiB"
  partition "boot" {
    size = "32MiB"
    filesystem { type = "vfat" }
    contents {
      file "/EFI/BOOT/grub.cfg" { content = "x" }
      file "/efi/boot/startup.nsh" { content = "x" }
      file "/why?" { content = "x" }             # ERROR: vfat cannot keep the file name
      file "/a:b" { content = "x" }              # ERROR: vfat cannot keep the file name
      file "/notes." { content = "x" }           # ERROR: vfat cannot keep the file name
      file "/con" { content = "x" }              # ERROR: vfat cannot keep the file name
      file "/smile-😀.txt" { content = "x" }     # ERROR: vfat cannot keep the file name
      file "/cmdline.txt" { content = "x" }
      file "/CMDLINE.TXT" { content = "x" }      # ERROR: vfat names differ only in case
    }
  }
}
