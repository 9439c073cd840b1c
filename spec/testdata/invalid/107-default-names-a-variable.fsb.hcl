# A default that names another variable is wrong; the variable is not
# also reported as required.
variable "a" {
  default = "4MiB"
}
variable "b" {
  default = var.a # ERROR: Variables not allowed
}
image "d" {
  size = "64MiB"
}
