package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/importer"
	"github.com/fsbench/fsbench/importer/genimage"
	"github.com/fsbench/fsbench/importer/repart"
	"github.com/fsbench/fsbench/importer/wks"
)

// importers are the layouts fsbench import reads, by format name.
var importers = map[string]func(path string) (*importer.Spec, error){
	"genimage": genimage.Import,
	"repart":   repart.Import,
	"wks":      wks.Import,
}

func runImport(env *Env, args []string) int {
	fs := newFlagSet(env, "import", "PATH",
		"Write a spec that builds the same image as a build system's layout: a genimage\n"+
			"configuration, a wic kickstart file (.wks) or a systemd-repart directory. The spec\n"+
			"goes to stdout; each block's comment names the line it comes from. An option the\n"+
			"spec cannot say is reported on stderr as FILE:LINE: error: OPTION: what to do\n"+
			"instead, and the command exits 1; notes (the same image, built another way) do not\n"+
			"change the exit code.")
	format := fs.String("format", "", "the layout's format: genimage, wks or repart (default: from the path)")
	if code, done := parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return ExitUsage
	}
	path := fs.Arg(0)
	f := *format
	if f == "" {
		f = detectFormat(path)
	}
	imp, ok := importers[f]
	if !ok {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range importers {
				if !yield(n) {
					return
				}
			}
		})
		fmt.Fprintf(env.Stderr, "fsbench import: -format %q: one of %s\n", f, strings.Join(names, ", "))
		return ExitUsage
	}
	s, err := imp(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench import: %s\n", err)
		if importer.AsSyntaxError(err) {
			return ExitInvalid
		}
		return ExitIO
	}
	out, err := importer.Write(s)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench import: %s\n", err)
		return ExitInternal
	}
	for _, fd := range s.Findings {
		fmt.Fprintln(env.Stderr, fd)
	}
	env.Stdout.Write(out)
	if s.Refused() {
		return ExitInvalid
	}
	return ExitOK
}

// detectFormat names the format of the layout at path: a directory is
// systemd-repart's, a .wks or .wks.in file wic's, anything else
// genimage's.
func detectFormat(path string) string {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "repart"
	}
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".wks") || strings.HasSuffix(name, ".wks.in") {
		return "wks"
	}
	return "genimage"
}
