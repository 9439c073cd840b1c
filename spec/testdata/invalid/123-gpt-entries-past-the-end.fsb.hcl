image "sdcard" {
  size         = "64MiB"
  gpt_location = "64MiB" # ERROR: GPT entries past the usable space
}
