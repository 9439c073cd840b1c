# Size arithmetic refuses a zero divisor instead of producing infinity.
variable "parts" {
  type    = number
  default = 0
}
image "d" {
  size = "64MiB" / var.parts # ERROR: Operation failed
}
