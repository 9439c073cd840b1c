package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/buildsys"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

func runKconfig(env *Env, args []string) int {
	fs := newFlagSet(env, "kconfig", "SPEC",
		"Print the kernel configuration fragment the spec's variants need: root filesystems\nand the board's disk driver built in, so that rootfstype= works without an\ninitramfs; the other filesystems at least as modules; the serial console; and\nwhat the tests use (device mapper for dm_flakey, the watchdog for power_loss).\nBuildroot merges it through BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES, Yocto as a\n.cfg in a kernel recipe's SRC_URI.")
	var sf specFlags
	sf.register(fs)
	variant := fs.String("variant", "", "only this variant")
	if code, done := parse(fs, args); done {
		return code
	}
	_, p, code := loadForBuildsys(env, fs, &sf, *variant)
	if code != ExitOK {
		return code
	}
	if _, err := buildsys.KernelConfig(p).WriteTo(env.Stdout); err != nil {
		return ExitIO
	}
	return ExitOK
}

func runBuildvars(env *Env, args []string) int {
	fs := newFlagSet(env, "buildvars", "-for buildroot|yocto SPEC",
		"Print the Buildroot (BR2_*) or Yocto (IMAGE_*, FSBENCH_*) settings the spec's\nvariants need: the root filesystem tarball fsbench build reads, fsbench and the\nrunner, the host tools that make each filesystem, the target packages the tests\nuse, and the init system of the start hook.")
	var sf specFlags
	sf.register(fs)
	system := fs.String("for", "", "the build system: "+strings.Join(buildsys.Systems, " or "))
	variant := fs.String("variant", "", "only this variant")
	specPath := fs.String("spec-path", "", "the spec's path as the build will name it (default: as given)")
	defconfig := fs.String("defconfig", "", "buildroot: the board's defconfig, whose post-image settings the printed lines merge with (genimage.sh, say)")
	merged := fs.Bool("merged", false, "buildroot, with -defconfig: print the whole defconfig with the settings in it, each symbol set once")
	if code, done := parse(fs, args); done {
		return code
	}
	if !slices.Contains(buildsys.Systems, *system) {
		fmt.Fprintf(env.Stderr, "fsbench buildvars: -for %q: use one of %s\n", *system, strings.Join(buildsys.Systems, ", "))
		return ExitUsage
	}
	s, p, code := loadForBuildsys(env, fs, &sf, *variant)
	if code != ExitOK {
		return code
	}
	if *specPath == "" {
		*specPath = fs.Arg(0)
	}
	if *merged && (*defconfig == "" || *system != "buildroot") {
		fmt.Fprintf(env.Stderr, "fsbench buildvars: -merged prints a Buildroot defconfig: it needs -for buildroot and -defconfig FILE\n")
		return ExitUsage
	}
	opts := buildsys.VarsOptions{SpecPath: *specPath, Inputs: s.Inputs()}
	var src []byte
	if *defconfig != "" {
		var err error
		if src, err = os.ReadFile(*defconfig); err != nil {
			fmt.Fprintf(env.Stderr, "fsbench buildvars: %s\n", err)
			return ExitIO
		}
		opts.Defconfig = buildsys.ParseDefconfig(string(src))
	}
	v, err := buildsys.BuildVars(*system, p, opts)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench buildvars: %s\n", err)
		return ExitUsage
	}
	if *merged {
		_, err = io.WriteString(env.Stdout, buildsys.MergeDefconfig(string(src), v))
	} else {
		_, err = v.WriteTo(env.Stdout)
	}
	if err != nil {
		return ExitIO
	}
	return ExitOK
}

// loadForBuildsys loads the spec of a command that describes a build
// configuration and keeps the variant asked for. Contents are not
// digested: the rootfs a build system will make does not exist yet.
func loadForBuildsys(env *Env, fs *flag.FlagSet, sf *specFlags, variant string) (*spec.Spec, *plan.Plan, int) {
	path, code := oneSpec(env, fs, sf)
	if code != ExitOK {
		return nil, nil, code
	}
	s, p, diags := plan.Load(path, sf.planningOptions(env))
	writeDiags(env, s, diags)
	if diags.HasErrors() {
		return nil, nil, ExitInvalid
	}
	variants, code := selectVariants(env, p, variant)
	if code != ExitOK {
		return nil, nil, code
	}
	p.Variants = variants
	return s, p, ExitOK
}
