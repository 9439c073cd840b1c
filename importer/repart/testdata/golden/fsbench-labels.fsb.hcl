# Imported from fsbench-labels (repart) by fsbench import. Each block names the line it comes from.

variable "disk_size" {
  description = "the image's size, systemd-repart's --size= (rounded up to 4KiB); the default is what --size=auto makes"
  default     = "19476KiB"
}

# a.conf:2: the disk systemd-repart --empty=create writes, in the order of the files' names: a.conf, b.conf, c.conf
image "disk" {
  table = "gpt"
  size  = var.disk_size
  align = "4KiB"

  # a.conf:2: a.conf, Type=linux-generic
  partition "a" {
    offset = "1MiB"
    size   = "4MiB"
    type   = "linux-generic"
    label  = "linux-generic"
  }

  # b.conf:1: b.conf, Type=linux-generic
  partition "b" {
    size  = "4MiB"
    type  = "linux-generic"
    label = "linux-generic-2"
  }

  # c.conf:1: c.conf, Type=linux-generic
  # takes the space past the other partitions, as repart gives it a disk larger than --size=auto's; at least 10MiB
  partition "c" {
    grow  = true
    type  = "linux-generic"
    label = "linux-generic-3"
  }
}
