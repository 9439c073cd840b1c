# Board definitions for the lab.   
// Maintained by the storage team.

/* block comment   
   spanning lines   */
board "x86" { # the reference machine  

  name = "NUC" # short name
  ram_mib = 16384 # in MiB
  # a comment line inside
  disk_count=2    // two NVMe slots
}
