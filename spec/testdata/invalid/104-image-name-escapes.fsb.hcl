# An image name becomes a file name; it may not lead out of the output
# directory.
image "../../etc/board" { # ERROR: Invalid image name
  size = "64MiB"
}
