// Command yoctogomod writes meta-fsbench's list of Go modules: a gomod://
// SRC_URI entry for every module version of go.sum, with the SHA-256 of
// the file do_fetch will download (the module zip, or only its go.mod),
// taken from the module cache. scripts/gen-yocto-gomod.sh downloads the
// modules first and runs it from the repository's top directory.
//
// Usage: go run ./buildsys/yoctogomod [-gosum go.sum] [-modcache DIR] > FILE
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/fsbench/fsbench/buildsys"
)

func main() {
	gosum := flag.String("gosum", "go.sum", "the go.sum to list")
	modcache := flag.String("modcache", "", "the module cache (default: go env GOMODCACHE)")
	flag.Parse()
	if err := run(*gosum, *modcache); err != nil {
		fmt.Fprintln(os.Stderr, "yoctogomod:", err)
		os.Exit(1)
	}
}

func run(gosum, modcache string) error {
	if modcache == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			return fmt.Errorf("go env GOMODCACHE: %w", err)
		}
		modcache = strings.TrimSpace(string(out))
	}
	f, err := os.Open(gosum)
	if err != nil {
		return err
	}
	defer f.Close()
	mods, err := buildsys.ReadGoSum(f)
	if err != nil {
		return err
	}
	uris, err := buildsys.GomodURIs(mods, modcache)
	if err != nil {
		return err
	}
	return buildsys.WriteGomodInc(os.Stdout, uris)
}
