// Command testinit is bootinit.Main as a program of its own, for the
// tests that boot it as /init in an initramfs (fsbench-runner does the
// same in the images fsbench builds).
package main

import (
	"os"

	"github.com/fsbench/fsbench/target/bootinit"
)

func main() { os.Exit(bootinit.Main()) }
