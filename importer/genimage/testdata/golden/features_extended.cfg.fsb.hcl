# Imported from extended.cfg (genimage) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED extended.cfg:19: extraargs: fsbench makes the filesystem with its own mkfs options: say them with the filesystem block's typed settings (block_size, features, tuning)

variable "binaries" {
  description = "genimage's input path: Buildroot's BINARIES_DIR"
}

variable "rootpath" {
  description = "genimage's root path, whose tree (under an image's mountpoint) fills a filesystem without files: Buildroot's genimage.sh passes an empty directory"
}

# extended.cfg:2: image disk.img (hdimage)
image "disk" {
  table   = "mbr"
  align   = "1MiB"
  disk_id = "0xfeedc0de"

  # extended.cfg:7: partition a
  partition "a" {
    size = "1MiB"
    type = "0x83"
  }

  # extended.cfg:8: partition b
  partition "b" {
    size = "1MiB"
    type = "0x83"
  }

  # extended.cfg:9: partition c
  partition "c" {
    size = "1MiB"
    type = "0x83"
  }

  # extended.cfg:10: partition d
  partition "d" {
    size    = "1MiB"
    type    = "0x83"
    logical = true
  }

  # extended.cfg:11: partition e
  partition "e" {
    size    = "2MiB"
    type    = "0x83"
    logical = true
  }

  # extended.cfg:12: partition f
  partition "f" {
    size    = "1MiB"
    type    = "0x00"
    logical = true
  }
}

# extended.cfg:15: image alone.ext4 (ext4), on its own
image "alone" {
  table = "none"
  align = "512B"

  # extended.cfg:15: the filesystem, the whole image
  partition "alone" {
    offset = 0
    size   = "8MiB"
    filesystem {
      type     = "ext4"
      label    = "data"
      features = ["^has_journal"]
    }
    contents {
      dir = "${var.rootpath}/data"
    }
  }
}
