package buildsys

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/fsbench/fsbench/filesystems"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

// Systems are the build systems BuildVars knows.
var Systems = []string{"buildroot", "yocto"}

// Block is a group of settings with the reason they are there, and notes
// on what a setting cannot express.
type Block struct {
	// Place says where the block goes, when the build system has several
	// places (Yocto: the image recipe or local.conf).
	Place string
	Why   string
	Lines []string
	Notes []string
}

// Vars are the build-system settings a spec implies.
type Vars struct {
	System   string
	Spec     string
	Variants []string
	Intro    string
	Blocks   []Block
}

// VarsOptions say where the settings will live.
type VarsOptions struct {
	// SpecPath is the spec as the build will name it (the post-image
	// script's argument, FSBENCH_SPEC); the plan's own name when empty.
	SpecPath string
	// Defconfig are the settings of the board's defconfig (Buildroot):
	// the lines that set what the board already sets are printed merged
	// with it (ParseDefconfig).
	Defconfig map[string]string
	// Inputs are the files the spec reads (spec.Spec.Inputs): Yocto's
	// image must wait for the tasks that deploy them.
	Inputs []spec.InputRef
}

// BuildVars returns the settings of system ("buildroot" or "yocto") that
// the variants of p need.
func BuildVars(system string, p *plan.Plan, opts VarsOptions) (*Vars, error) {
	n := Analyze(p)
	specPath := opts.SpecPath
	if specPath == "" {
		specPath = n.Spec
	}
	v := &Vars{System: system, Spec: n.Spec, Variants: n.Variants}
	switch system {
	case "buildroot":
		buildrootVars(v, n, specPath, opts.Defconfig)
	case "yocto":
		yoctoVars(v, n, specPath, opts.Inputs)
	default:
		return nil, fmt.Errorf("no build system %q: use one of %s", system, strings.Join(Systems, ", "))
	}
	return v, nil
}

// WriteTo writes the settings as a configuration fragment: comments, then
// lines, in a stable order.
func (v *Vars) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s settings for %s (fsbench buildvars -for %s).\n", systemTitle[v.System], v.Spec, v.System)
	fmt.Fprintf(&b, "# Variants: %s.\n", strings.Join(v.Variants, ", "))
	if v.Intro != "" {
		fmt.Fprintf(&b, "# %s\n", v.Intro)
	}
	for _, blk := range v.Blocks {
		if len(blk.Lines) == 0 && len(blk.Notes) == 0 {
			continue
		}
		if blk.Place != "" {
			fmt.Fprintf(&b, "\n# [%s] %s\n", blk.Place, blk.Why)
		} else {
			fmt.Fprintf(&b, "\n# %s\n", blk.Why)
		}
		for _, l := range blk.Lines {
			fmt.Fprintln(&b, l)
		}
		for _, n := range blk.Notes {
			fmt.Fprintf(&b, "# %s\n", n)
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

func (v *Vars) String() string {
	var b strings.Builder
	v.WriteTo(&b)
	return b.String()
}

var systemTitle = map[string]string{"buildroot": "Buildroot", "yocto": "Yocto"}

func (v *Vars) add(b Block) { v.Blocks = append(v.Blocks, b) }

// hostPackages returns what provides the host tools of types in a build
// system, as of picks it from each program of the catalogue, and, by
// type, the tools the build system has no package for ("" from of): those
// come from the build host.
func hostPackages(of func(filesystems.Program) string, types []string) (pkgs []string, missing map[string][]string) {
	missing = map[string][]string{}
	for _, t := range types {
		ft, ok := filesystems.Lookup(t)
		if !ok {
			continue
		}
		for _, tool := range ft.Tools {
			prog, _ := ft.Program(tool)
			if p := of(prog); p != "" {
				if !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			} else if !slices.Contains(missing[t], tool) {
				missing[t] = append(missing[t], tool)
			}
		}
	}
	sort.Strings(pkgs)
	return pkgs, missing
}

// targetPackages are the packages with a type's own programs for the
// target.
func targetPackages(fsType string) filesystems.TargetPackages {
	if t, ok := filesystems.Lookup(fsType); ok {
		return t.Target
	}
	return filesystems.TargetPackages{}
}

// sortedTypes returns the keys of a per-type map in order.
func sortedTypes(m map[string][]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
