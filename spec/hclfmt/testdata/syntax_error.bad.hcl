board "broken" {
  name = "ok"
  size = 
}
