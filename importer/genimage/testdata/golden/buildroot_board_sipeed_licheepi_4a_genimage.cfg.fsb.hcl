# Imported from genimage.cfg (genimage) by fsbench import. Each block names the line it comes from.

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# genimage.cfg:1: image boot.ext4 (ext4), on its own
image "boot" {
  table = "none"
  align = "512B"

  # genimage.cfg:1: the filesystem, the whole image
  partition "boot" {
    offset = 0
    size   = "64MiB"
    filesystem {
      type  = "ext4"
      label = "boot"
    }
    contents {
      dir = var.rootpath
    }
  }
}
