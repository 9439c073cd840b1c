board "rock5b" {
name = "Rock 5B"
    image "base" {
  source = "debian-12.img"
        partition "boot" {
    size = "512MiB"
    fs = "vfat"
          tuning {
  cluster_size = "4KiB"
          }
        }
    partition "root" {
      size   = "28GiB"
      fs     = "ext4"
      mount_options = ["noatime","commit=60"]
      labels = {
          role = "root"
        tier="fast"
      }
    }
  }
}
