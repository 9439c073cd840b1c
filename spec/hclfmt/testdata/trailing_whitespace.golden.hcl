board "ws" {
  name = "trailing spaces"
  size = "1GiB"
  list = [
    "a",
    "b",
  ]
}
