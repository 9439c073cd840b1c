// Command fsbench-bench-board is a board on the bench made of QEMU, for
// trying fsbench run -target board and fsbench capture without hardware
// (package benchboard; scripts/bench-board.sh builds and starts it).
package main

import (
	"os"

	"github.com/fsbench/fsbench/driver/benchboard"
)

func main() {
	os.Exit(benchboard.Main(os.Args[1:], os.Stdout, os.Stderr))
}
