image "sdcard" {
  table = "mbr"
  size  = "1GiB"

  raw "u-boot" {
    offset = 0
    file   = "MLO"
    holes = [
      { offset = 440 },                # ERROR: Invalid hole
      { offset = "1x", size = 72 },    # ERROR: Invalid hole
      { offset = 440, size = 0 },      # ERROR: Invalid hole
    ]
  }
}
