image "emmc" {
  table = "gpt"
  size  = "3648MiB"

  partition "rootfs" {
    size = "512MiB"
    root = true
    filesystem { type = "ext4" }
  }
  partition "bench" {
    size    = "1GiB"
    logical = true # ERROR: Logical partition on a GPT table
    filesystem { type = "ext4" }
  }
}
