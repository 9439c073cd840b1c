# Imported from systemd-dropin (repart) by fsbench import. Each block names the line it comes from.
# NOT IMPORTED root.conf.d/override1.conf:3: SizeMaxBytes=: repart grows the partition up to 32MiB and leaves the rest of a larger disk free; fsbench's grow takes all of it. The spec gives it its minimum, 10MiB: the image of --size=auto. Give SizeMinBytes= the size you want

# root.conf:1: the disk systemd-repart --empty=create writes, in the order of the files' names: root.conf
image "disk" {
  table = "gpt"
  size  = "11284KiB"
  align = "4KiB"

  # root.conf:1: root.conf, Type=swap, with root.conf.d/override1.conf, root.conf.d/override2.conf
  partition "root" {
    offset = "1MiB"
    size   = "10MiB"
    type   = "swap"
    label  = "label2"
    uuid   = "837c3d67-21b3-478e-be82-7e7f83bf96d3"
  }
}
