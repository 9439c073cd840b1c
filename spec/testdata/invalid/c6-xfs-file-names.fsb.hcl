# An mkfs.xfs protofile splits names at whitespace, reads ":" as the
# start of a comment and "$" as the end of a directory.
image "disk" {
  size = "384MiB"
  partition "data" {
    size = "320MiB"
    filesystem { type = "xfs" }
    contents {
      file "/etc/my file" { content = "x" } # ERROR: xfs cannot keep the file name
      file "/etc/:conf" { content = "x" }   # ERROR: xfs cannot keep the file name
      file "/etc/$" { content = "x" }       # ERROR: xfs cannot keep the file name
      file "/etc/a:b" { content = "x" }
    }
  }
}
