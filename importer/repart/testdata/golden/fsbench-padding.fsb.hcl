# Imported from fsbench-padding (repart) by fsbench import. Each block names the line it comes from.
# NOTE 30-c.conf:2: Type=: repart sets GPT attribute bit 59 on a xbootldr partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "62460KiB"
}

# 10-a.conf:2: the disk systemd-repart --empty=create writes, in the order of the files' names: 10-a.conf, 20-b.conf, 30-c.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # 10-a.conf:2: 10-a.conf, Type=linux-generic
  partition "10-a" {
    offset = "1MiB"
    size   = "8MiB"
    type   = "linux-generic"
    label  = "linux-generic"
  }

  # 20-b.conf:1: 20-b.conf, Type=swap
  partition "20-b" {
    offset = "12MiB"
    size   = "16MiB"
    type   = "swap"
    label  = "swap"
  }

  # 30-c.conf:1: 30-c.conf, Type=xbootldr
  partition "30-c" {
    offset = "29672KiB"
    size   = "32MiB"
    type   = "xbootldr"
    label  = "boot"
    filesystem {
      type  = "vfat"
      label = "BOOT"
    }
  }
}
