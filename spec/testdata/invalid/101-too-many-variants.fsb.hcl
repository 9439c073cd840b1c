# A matrix bigger than any study is refused before it is evaluated.
matrix "a" { values = range(100) }
matrix "b" { values = range(100) } # ERROR: Too many variants
image "d" {
  size = "64MiB"
}
