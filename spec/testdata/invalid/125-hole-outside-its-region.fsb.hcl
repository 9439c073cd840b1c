image "sdcard" {
  table = "mbr"
  size  = "1GiB"

  raw "u-boot" {
    offset = 0
    size   = "64KiB"
    file   = "MLO"
    holes = [
      { offset = 440, size = 72 },
      { offset = "64KiB", size = 512 }, # ERROR: Hole outside its raw region
    ]
  }
}
