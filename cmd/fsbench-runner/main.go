// Command fsbench-runner is the target side of fsbench: a static binary that
// fsbench build places in the image with the compiled test plan. It runs the
// plan on the board's first boots (see package runner). Started as /init of
// the initramfs that fsbench run gives a QEMU target, it loads the kernel
// modules the root filesystem needs, mounts it and hands over to its init
// (see package bootinit).
package main

import (
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/target/bootinit"
	"github.com/fsbench/fsbench/target/runner"
)

func main() {
	if filepath.Base(os.Args[0]) == "init" {
		os.Exit(bootinit.Main())
	}
	os.Exit(runner.Main(os.Args[1:], os.Stdout, os.Stderr))
}
