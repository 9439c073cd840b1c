board "nonl" {
  name = "no final newline"
}