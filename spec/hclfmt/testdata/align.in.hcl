board "rpi4" {
  name = "Raspberry Pi 4"
  soc= "bcm2711"
  ram_mib    = 4096
  storage_controller_count =1

  vendor = "raspberrypi"
  revision   = "1.5"
}
