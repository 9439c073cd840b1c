// Command fsbench plans, builds and runs filesystem studies for embedded
// boards from an HCL spec. See the README for an overview.
package main

import (
	"os"

	"github.com/fsbench/fsbench/cmd/fsbench/cli"
)

func main() { os.Exit(cli.Run()) }
