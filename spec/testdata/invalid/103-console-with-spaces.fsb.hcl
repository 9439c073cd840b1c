# console is one kernel argument; others go to kernel_args.
board "b" {
  console = "ttyS0 init=/bin/sh" # ERROR: Invalid console
}
image "d" {
  size = "64MiB"
}
