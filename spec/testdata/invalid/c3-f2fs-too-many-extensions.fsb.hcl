# mkfs.f2fs keeps 64 extensions and 40 are its own: 24 are left for
# cold_extensions and hot_extensions together.
image "disk" {
  size = "160MiB"
  partition "cold" {
    size = "64MiB"
    filesystem {
      type = "f2fs"
      tuning {
        cold_extensions = [for i in range(25) : "c${i}"] # ERROR: Too many f2fs extensions
      }
    }
  }
  partition "hot" {
    size = "64MiB"
    filesystem {
      type = "f2fs"
      tuning {
        cold_extensions = [for i in range(20) : "c${i}"]
        hot_extensions  = ["h1", "h2", "h3", "h4", "h5"] # ERROR: Too many f2fs extensions
      }
    }
  }
}
