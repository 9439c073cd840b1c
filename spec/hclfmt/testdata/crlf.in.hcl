board "win" {
  name = "Edited on Windows"
  size=  "8GiB"


  script = <<EOT
echo hi
EOT
}
