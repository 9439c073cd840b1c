# An already canonical spec: formatting must leave it byte for byte alone.
variable "image_size" {
  type    = string
  default = "4GiB"
}

board "rpi5" {
  name = "Raspberry Pi 5"

  image "base" {
    source = "raspios.img"
    size   = var.image_size

    partition "root" {
      fs            = "ext4"
      mount_options = ["noatime"]
    }
  }
}

test "dd" {
  command = "dd if=/dev/zero of=${path} bs=1M count=${count}"
}
