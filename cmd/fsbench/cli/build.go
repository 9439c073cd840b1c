package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/internal/digest"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/spec"
)

func runBuild(env *Env, args []string) int {
	fs := newFlagSet(env, "build", "SPEC",
		"Build the disk images of every variant (or one) into OUT/<variant>/: the image,\nits manifest.json, bootargs.txt, fstab and the bootloader file the board expects.\nWhen the spec has tests, the root filesystem also gets the runner, the compiled\ntest plan and a start hook (written beside the image as payload/ and payload.tar).\nTimestamps come from SOURCE_DATE_EPOCH (1980-01-01 when unset), so the same\nspec and inputs give bit-identical images. An interrupted build leaves no image behind.")
	var sf specFlags
	sf.register(fs)
	out := fs.String("o", "out", "output directory")
	variant := fs.String("variant", "", "only this variant")
	jobs := fs.Int("j", 0, "filesystems built at once (default: one per CPU)")
	fullSHA := fs.Bool("sha256", false, "also record the SHA-256 of each whole image (reads every hole: about a second per GiB)")
	var compress listFlag
	fs.Var(&compress, "compress", "also write IMAGE.zst or IMAGE.xz (repeatable)")
	runner := runnerFlag(fs)
	noPayload := fs.Bool("no-payload", false, "do not add the runner and the test plan to the root filesystem")
	if code, done := parse(fs, args); done {
		return code
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	for _, c := range compress {
		if !slices.Contains(imagegen.Compressions, c) {
			fmt.Fprintf(env.Stderr, "fsbench build: -compress %q: use one of %s\n", c, strings.Join(imagegen.Compressions, ", "))
			return ExitUsage
		}
	}
	bs, code := newBuildSetup(env, "build", *runner)
	if code != ExitOK {
		return code
	}
	defer bs.stop()
	ctx := bs.ctx
	opts := sf.options(env)
	opts.NoPayload = *noPayload
	s, p, diags := plan.Load(path, opts)
	writeDiags(env, s, diags)
	if diags.HasErrors() {
		return ExitInvalid
	}
	logIgnoredEnv(env, s)
	variants, code := selectVariants(env, p, *variant)
	if code != ExitOK {
		return code
	}
	// The inputs are digested into the fingerprint while the filesystems
	// are built, which read the same files: the build waits for the
	// digests only where it needs the fingerprint.
	digests := digest.OpenCache(digestCachePath(bs.cache, path))
	sealing := p.StartSeal(s, digests)
	sealed := func() error {
		if sealing().HasErrors() {
			return errSeal
		}
		return nil
	}
	for _, v := range variants {
		m, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: *out, SpecDir: s.Dir, Epoch: bs.epoch, Jobs: *jobs, Log: env.Log,
			Compress: compress, FullSHA256: *fullSHA, Runner: bs.runner, NoPayload: *noPayload, CacheDir: bs.cache,
			Sealed: sealed})
		if err != nil {
			if ctx.Err() != nil {
				// Whatever a tool said as it was stopped is no verdict.
				fmt.Fprintf(env.Stderr, "fsbench build: interrupted while building variant %s; nothing unfinished was left at the output paths\n", v.Name)
				return ExitInterrupted
			}
			// An input that cannot be read is the spec's mistake, said
			// with its place, whatever step failed on it first.
			if sd := sealing(); sd.HasErrors() {
				writeDiags(env, s, sd)
				return ExitInvalid
			}
			fmt.Fprintf(env.Stderr, "fsbench build: variant %s: %s\n", v.Name, err)
			return ExitBuild
		}
		for _, img := range m.Images {
			fmt.Fprintf(env.Stdout, "%s  bmap-sha256:%s", filepath.Join(*out, v.Name, img.File), img.BmapSHA256)
			if img.SHA256 != "" {
				fmt.Fprintf(env.Stdout, "  sha256:%s", img.SHA256)
			}
			fmt.Fprintln(env.Stdout)
		}
	}
	if !sealing().HasErrors() {
		if err := digests.Save(); err != nil {
			env.Log.Debugf("keeping the inputs' digests: %v", err)
		}
	}
	return ExitOK
}

// digestCachePath is the file that keeps the digests of the inputs of the
// spec at specPath, for its next build (digest.Cache).
func digestCachePath(cacheDir, specPath string) string {
	if abs, err := filepath.Abs(specPath); err == nil {
		specPath = abs
	}
	sum := sha256.Sum256([]byte(specPath))
	return filepath.Join(cacheDir, "digests", hex.EncodeToString(sum[:8]))
}

// errSeal stands for the diagnostics of a plan that could not be sealed,
// which the build command prints itself.
var errSeal = errors.New("the plan's inputs cannot be read")

func runBootargs(env *Env, args []string) int {
	fs := newFlagSet(env, "bootargs", "SPEC",
		"Print the kernel command line of each variant: root=, rootfstype=, rootflags=,\nrootwait and console=, one line per variant (prefixed with the variant's name\nwhen there are several).")
	var sf specFlags
	sf.register(fs)
	variant := fs.String("variant", "", "only this variant")
	if code, done := parse(fs, args); done {
		return code
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	s, p, diags := plan.Load(path, sf.planningOptions(env))
	writeDiags(env, s, diags)
	if diags.HasErrors() {
		return ExitInvalid
	}
	variants, code := selectVariants(env, p, *variant)
	if code != ExitOK {
		return code
	}
	for _, v := range variants {
		if len(variants) > 1 {
			fmt.Fprintf(env.Stdout, "%s: ", v.Name)
		}
		fmt.Fprintln(env.Stdout, strings.Join(v.Bootargs, " "))
	}
	return ExitOK
}

// loadVariants loads and seals the spec at path, reporting its
// diagnostics, and picks the variants a command works on: all, or the
// one named.
func loadVariants(env *Env, path string, sf *specFlags, variant string) (*spec.Spec, *plan.Plan, []plan.Variant, int) {
	s, p, diags := plan.LoadSealed(path, sf.options(env))
	writeDiags(env, s, diags)
	if diags.HasErrors() {
		return nil, nil, nil, ExitInvalid
	}
	logIgnoredEnv(env, s)
	variants, code := selectVariants(env, p, variant)
	return s, p, variants, code
}

// selectVariants returns every variant, or the one named.
func selectVariants(env *Env, p *plan.Plan, name string) ([]plan.Variant, int) {
	if name == "" {
		return p.Variants, ExitOK
	}
	var names []string
	for _, v := range p.Variants {
		if v.Name == name {
			return []plan.Variant{v}, ExitOK
		}
		names = append(names, v.Name)
	}
	fmt.Fprintf(env.Stderr, "fsbench: no variant %q.%s Variants: %s\n", name, didYouMean(name, names), strings.Join(names, ", "))
	return nil, ExitUsage
}

// logIgnoredEnv says which FSB_VAR_ values the spec ignored, on every
// run (a build system's log is not a terminal): the build systems offer
// rootfs_tar and binaries to every spec, and one that does not declare
// them builds without.
func logIgnoredEnv(env *Env, s *spec.Spec) {
	for _, name := range s.IgnoredEnv {
		fmt.Fprintf(env.Stderr, "fsbench: note: FSB_VAR_%s is set, and the spec declares no variable %q: ignored (declare it to use it: variable %q { type = string })\n", name, name, name)
	}
}
