# Imported from systemd-zero-uuid (repart) by fsbench import. Each block names the line it comes from.
# NOTE root.conf:2: Type=: repart sets GPT attribute bit 59 on a root-x86-64 partition (GrowFileSystem=, for systemd-growfs at boot), fsbench sets no attribute bits; its filesystem fills the partition already: set the bit after the build (sgdisk -A N:set:59) where the board's repart grows the partition
# NOT IMPORTED root.conf:3: UUID=: the all-zero GUID; fsbench gives every partition a GUID of its own: leave UUID= out, or give one

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "11284KiB"
}

# root.conf:1: the disk systemd-repart --empty=create writes, in the order of the files' names: root.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # root.conf:1: root.conf, Type=root-x86-64
  # takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least 10MiB
  partition "root" {
    offset = "1MiB"
    grow   = true
    type   = "root-x86-64"
    label  = "root-x86-64"
  }
}
