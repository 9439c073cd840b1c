image "sdcard" {
  size = "1GiB"

  partition "fsbl" {
    align = 100 # ERROR: Invalid alignment
    size  = "256KiB"
  }
}
