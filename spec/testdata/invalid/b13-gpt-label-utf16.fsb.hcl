# A GPT name is 36 UTF-16 code units: 19 emoji take 38.
image "disk" {
  size = "64MiB"
  partition "p" {
    size  = "32MiB"
    label = "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀" # ERROR: Partition label too long
  }
}
