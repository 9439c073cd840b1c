package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/driver/lava"
	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/imagegen/payload"
	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/spec"
)

func runLAVA(env *Env, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "jobs":
			return runLAVAJobs(env, args[1:])
		case "results":
			return runLAVAResults(env, args[1:])
		}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(env.Stderr, lavaUsage)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "fsbench lava: unknown subcommand %q.%s\n\n%s", args[0], didYouMean(args[0], []string{"jobs", "results"}), lavaUsage)
	return ExitUsage
}

const lavaUsage = `Usage: fsbench lava jobs [flags] SPEC
       fsbench lava results [flags] (LOG... | -server URL JOB_ID...)

jobs     build every variant and write one LAVA job definition per variant (and
         repetition), checked with LAVA's own schema; -submit sends them to a lab
results  turn LAVA jobs' logs (lava-run's output, or a server's jobs) into fsbench
         results files, which 'fsbench report' reads

Run 'fsbench lava jobs -h' or 'fsbench lava results -h' for the flags.
`

// submitted is OUT/lava/submitted.json: the jobs a -submit sent, for
// 'fsbench lava results -jobs'.
type submitted struct {
	Server string         `json:"server"`
	Jobs   []submittedJob `json:"jobs"`
}

type submittedJob struct {
	File    string `json:"file"`
	Variant string `json:"variant"`
	ID      int    `json:"id"`
}

func runLAVAJobs(env *Env, args []string) int {
	fs := newFlagSet(env, "lava jobs", "SPEC",
		"Build every variant (or one) into OUT/<variant>/ and write a LAVA job definition\n"+
			"for each into OUT/lava/: the deploy of the image (with its bmap and SHA-256\n"+
			"sums, downloaded from -artifacts, under which the lab must find OUT's files),\n"+
			"the boot, and a monitor that follows the runner from its first step to the\n"+
			"plan's end, reboots included. The device type and tags come from the board's\n"+
			"lava block (or the flags): on a qemu device QEMU boots Debian's kernel and\n"+
			"fsbench's initramfs (written to OUT/<variant>/lava/) or, with -boot uboot,\n"+
			"U-Boot boots the image; on any other type the lab's flasher writes the image\n"+
			"and U-Boot boots it from its own boot files. Every job is checked with LAVA's\n"+
			"schema (Debian's lava-common) before anything is written, and with lava-run\n"+
			"--validate when -device-dict names a rendered device dictionary. -submit sends\n"+
			"the jobs to a LAVA server, with the token in $"+lava.TokenEnv+", and records their ids\n"+
			"in OUT/lava/submitted.json.")
	var sf specFlags
	sf.register(fs)
	out := fs.String("o", "out", "output directory")
	variant := fs.String("variant", "", "only this variant")
	artifacts := fs.String("artifacts", "", "URL under which the lab finds the output directory's files (http://, https://, or file:// for a dispatcher on this host)")
	deviceType := fs.String("device-type", "", "LAVA device type (default: the board's lava block)")
	tags := fs.String("tags", "", "comma-separated LAVA device tags (default: the board's lava block)")
	boot := fs.String("boot", lava.BootDirect, "qemu device: direct (Debian's kernel and fsbench's initramfs) or uboot (u-boot-qemu boots the image from its boot block's files)")
	accel := fs.String("accel", "tcg", "qemu device: tcg or kvm")
	memory := fs.Int("memory", 512, "qemu device: memory in MiB")
	kernelFlag := fs.String("kernel", "", "qemu device, direct boot: the Debian kernel, PACKAGE[=VERSION] or =VERSION (as for 'fsbench run')")
	repeat := fs.Int("repeat", 1, "jobs per variant, which the lab runs on as many devices")
	priority := fs.String("priority", "medium", "LAVA priority: high, medium or low")
	deviceDict := fs.String("device-dict", "", "a rendered LAVA device dictionary: check every job with lava-run --validate against it too")
	submit := fs.String("submit", "", "LAVA server URL (https://lava.example.com): submit the jobs, with the token in $"+lava.TokenEnv)
	runner := fs.String("runner", "", "the fsbench-runner binary for the board (default: $FSBENCH_RUNNER, else fsbench-runner-<arch> beside fsbench)")
	if code, done := parse(fs, args); done {
		return code
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "fsbench lava jobs: "+format+"\n", args...)
		return code
	}
	if *artifacts == "" {
		return fail(ExitUsage, "-artifacts is missing: the URL under which the lab downloads %s's files, such as https://files.example.com/fsbench/%s (or file://%s for a dispatcher on this host)", *out, *out, absOr(*out))
	}
	if *boot != lava.BootDirect && *boot != lava.BootUBoot {
		return fail(ExitUsage, "-boot %q: use direct or uboot", *boot)
	}
	if *accel != "tcg" && *accel != "kvm" {
		return fail(ExitUsage, "-accel %q: use tcg or kvm", *accel)
	}
	switch *priority {
	case "high", "medium", "low":
	default:
		return fail(ExitUsage, "-priority %q: use high, medium or low", *priority)
	}
	if *repeat < 1 || *repeat > 1000 {
		return fail(ExitUsage, "-repeat %d: use 1 to 1000", *repeat)
	}
	kreq, err := kernel.ParseRequest(*kernelFlag)
	if err != nil {
		return fail(ExitUsage, "-%s", err)
	}
	var server *lava.Server
	if *submit != "" {
		token := lookupEnv(env.Environ, lava.TokenEnv)
		if token == "" {
			return fail(ExitUsage, "-submit needs a LAVA API token in $%s (a server's user profile makes one); it is never read from a flag or a spec", lava.TokenEnv)
		}
		if server, err = lava.NewServer(*submit, token); err != nil {
			return fail(ExitUsage, "%s", err)
		}
	}
	opt := lava.Options{Artifacts: *artifacts, DeviceType: *deviceType, Boot: *boot, Accel: *accel, MemoryMiB: *memory,
		Repeat: *repeat, Priority: *priority, Version: Version}
	if *tags != "" {
		opt.Tags = strings.Split(*tags, ",")
	}
	if *runner == "" {
		*runner = lookupEnv(env.Environ, payload.RunnerEnv)
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	epoch, err := sourceDateEpoch(env.Environ)
	if err != nil {
		return fail(ExitUsage, "%s", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, p, variants, code := loadVariants(env, path, &sf, *variant)
	if code != ExitOK {
		return code
	}
	cache := lookupEnv(env.Environ, "FSBENCH_CACHE")
	if cache == "" {
		cache = imagegen.DefaultCacheDir()
	}
	var jobs []lava.Job
	for _, v := range variants {
		js, err := lavaVariant(ctx, env, p, s, v, opt, lavaBuild{out: *out, epoch: epoch, runner: *runner, cache: cache, kernel: kreq})
		if err != nil {
			if ctx.Err() != nil {
				return fail(ExitInterrupted, "interrupted at variant %s", v.Name)
			}
			return fail(ExitBuild, "%s", err)
		}
		jobs = append(jobs, js...)
	}
	// The jobs are checked before any of them is written: a refused job
	// leaves the last good set in place.
	dir := filepath.Join(*out, lava.Dir)
	tmp, err := os.MkdirTemp(*out, ".lava-check-")
	if err != nil {
		return fail(ExitIO, "%s", err)
	}
	defer os.RemoveAll(tmp)
	files := map[string][]byte{}
	var paths []string
	for _, j := range jobs {
		b, err := j.Definition.YAML(fmt.Sprintf("fsbench %s: LAVA job for variant %s of %s", Version, j.Variant, p.Spec))
		if err != nil {
			return fail(ExitInternal, "%s", err)
		}
		f := filepath.Join(tmp, j.File)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return fail(ExitIO, "%s", err)
		}
		files[j.File], paths = b, append(paths, f)
	}
	bad, err := lava.ValidateSchema(ctx, paths...)
	if err != nil {
		return fail(ExitBuild, "%s", err)
	}
	for _, e := range bad {
		e.File = filepath.Base(e.File)
		fmt.Fprintf(env.Stderr, "fsbench lava jobs: LAVA's schema refuses %s\n", e)
	}
	if len(bad) > 0 {
		return ExitBuild
	}
	if *deviceDict != "" {
		for _, f := range paths {
			if err := lava.ValidateDispatcher(ctx, f, *deviceDict, tmp); err != nil {
				return fail(ExitBuild, "%s", err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(ExitIO, "%s", err)
	}
	for _, j := range jobs {
		if err := atomicfile.WriteFile(filepath.Join(dir, j.File), files[j.File], 0o644); err != nil {
			return fail(ExitIO, "%s", err)
		}
		fmt.Fprintln(env.Stdout, filepath.Join(dir, j.File))
	}
	if server == nil {
		return ExitOK
	}
	rec := submitted{Server: server.URL}
	code = ExitOK
	for _, j := range jobs {
		ids, err := server.Submit(ctx, files[j.File])
		if err != nil {
			fmt.Fprintf(env.Stderr, "fsbench lava jobs: submitting %s: %s\n", j.File, err)
			code = ExitBuild
			break
		}
		for _, id := range ids {
			rec.Jobs = append(rec.Jobs, submittedJob{File: j.File, Variant: j.Variant, ID: id})
			fmt.Fprintf(env.Stdout, "%s: job %d: %s/scheduler/job/%d\n", j.File, id, server.URL, id)
		}
	}
	if len(rec.Jobs) > 0 {
		b, _ := json.MarshalIndent(rec, "", "  ")
		if err := atomicfile.WriteFile(filepath.Join(dir, "submitted.json"), append(b, '\n'), 0o644); err != nil {
			return fail(ExitIO, "%s", err)
		}
	}
	return code
}

type lavaBuild struct {
	out, runner, cache string
	epoch              int64
	kernel             kernel.Request
}

// lavaVariant builds v and the files its jobs download, and returns its
// jobs.
func lavaVariant(ctx context.Context, env *Env, p *plan.Plan, s *spec.Spec, v plan.Variant, opt lava.Options, b lavaBuild) ([]lava.Job, error) {
	bin, err := payload.FindRunner(b.runner, v.Board.Arch)
	if err != nil {
		return nil, err
	}
	if _, err := imagegen.Build(ctx, p, v, imagegen.Options{OutDir: b.out, SpecDir: s.Dir, Epoch: b.epoch, Log: env.Log,
		Runner: bin, CacheDir: b.cache}); err != nil {
		return nil, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	lv := lava.Variant{Name: v.Name, Dir: filepath.Join(b.out, v.Name), Board: v.Board}
	dt := opt.DeviceType
	if dt == "" && v.Board.LAVA != nil {
		dt = v.Board.LAVA.DeviceType
	}
	if dt == spec.LAVAQEMU {
		switch opt.Boot {
		case lava.BootUBoot:
			err = lava.PrepareUBoot(&lv)
		default:
			err = lava.PrepareDirect(ctx, env.Log, &lv, driver.QEMU{KernelCache: filepath.Join(b.cache, "kernels"), Kernel: b.kernel}, bin)
		}
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
	}
	return lava.Jobs(lv, opt)
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func runLAVAResults(env *Env, args []string) int {
	fs := newFlagSet(env, "lava results", "(LOG... | -server URL JOB_ID... | -jobs OUT/lava/submitted.json)",
		"Read the runner's results out of LAVA jobs' logs and write them, with the job and\n"+
			"its device in each result's context, to OUT/<job>/results.jsonl (and the console\n"+
			"to console.log), so that 'fsbench report OUT' draws a lab's run like a local one.\n"+
			"A LOG is the log lava-run writes on its standard error, or the log a server\n"+
			"gave; with -server, JOB_IDs are fetched from its REST API (the\n"+
			"token, for a private job, in $"+lava.TokenEnv+"), as are the jobs of -jobs. A job whose\n"+
			"runner did not complete its plan, or whose results did not all arrive intact,\n"+
			"is reported with what it has and the exit status says so.")
	out := fs.String("o", filepath.Join("out", "lava-results"), "output directory")
	serverURL := fs.String("server", "", "LAVA server URL: the arguments are job ids")
	jobsFile := fs.String("jobs", "", "the submitted.json of 'fsbench lava jobs -submit': fetch its jobs from its server")
	jobID := fs.String("job-id", "", "LOG: the job's id, for the results' context")
	device := fs.String("device", "", "LOG: the device the job ran on, for the results' context")
	deviceType := fs.String("device-type", "", "LOG: the device's type")
	if code, done := parse(fs, args); done {
		return code
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "fsbench lava results: "+format+"\n", args...)
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	type source struct {
		name string
		load func() (lava.Run, error)
	}
	var sources []source
	var server *lava.Server
	var ids []int
	switch {
	case *jobsFile != "":
		b, err := os.ReadFile(*jobsFile)
		if err != nil {
			return fail(ExitIO, "%s", err)
		}
		var rec submitted
		if err := json.Unmarshal(b, &rec); err != nil {
			return fail(ExitIO, "%s: %v", *jobsFile, err)
		}
		*serverURL = cmp.Or(*serverURL, rec.Server)
		for _, j := range rec.Jobs {
			ids = append(ids, j.ID)
		}
		if fs.NArg() > 0 {
			return fail(ExitUsage, "-jobs names the jobs; give no other arguments")
		}
	case *serverURL != "":
		for _, a := range fs.Args() {
			id, err := strconv.Atoi(a)
			if err != nil || id <= 0 {
				return fail(ExitUsage, "with -server the arguments are job ids; %q is not one", a)
			}
			ids = append(ids, id)
		}
	}
	if *serverURL != "" {
		var err error
		if server, err = lava.NewServer(*serverURL, lookupEnv(env.Environ, lava.TokenEnv)); err != nil {
			return fail(ExitUsage, "%s", err)
		}
		if len(ids) == 0 {
			return fail(ExitUsage, "no job ids to fetch")
		}
		for _, id := range ids {
			sources = append(sources, source{name: strconv.Itoa(id), load: func() (lava.Run, error) {
				r, j, err := server.Fetch(ctx, id)
				if err == nil && j.Health != "Complete" {
					env.Log.Warnf("job %d is %s: %s", id, j.Health, cmp.Or(j.FailureComment, "no failure comment"))
				}
				return r, err
			}})
		}
	} else {
		if fs.NArg() == 0 {
			return fail(ExitUsage, "expected LAVA logs, or -server with job ids")
		}
		if fs.NArg() > 1 && (*jobID != "" || *device != "") {
			return fail(ExitUsage, "-job-id and -device describe one log; give one LOG with them")
		}
		for _, a := range fs.Args() {
			name := cmp.Or(*jobID, strings.TrimSuffix(filepath.Base(a), filepath.Ext(a)))
			sources = append(sources, source{name: name, load: func() (lava.Run, error) {
				f, err := os.Open(a)
				if err != nil {
					return lava.Run{}, err
				}
				defer f.Close()
				entries, err := lava.ReadLog(f)
				if err != nil {
					return lava.Run{}, fmt.Errorf("%s: %w", a, err)
				}
				return lava.Run{JobID: *jobID, Device: *device, DeviceType: *deviceType, Entries: entries}, nil
			}})
		}
	}
	code := ExitOK
	for _, src := range sources {
		if err := convertLAVA(ctx, env, *out, src.name, src.load); err != nil {
			fmt.Fprintf(env.Stderr, "fsbench lava results: %s\n", err)
			switch {
			case ctx.Err() != nil:
				return ExitInterrupted
			case errors.Is(err, lava.ErrNotFinished):
				code = max(code, ExitIO)
			default:
				code = ExitBuild
			}
		}
	}
	return code
}

// convertLAVA writes one job's results into OUT/<name>/.
func convertLAVA(ctx context.Context, env *Env, out, name string, load func() (lava.Run, error)) error {
	run, err := load()
	if err != nil {
		return err
	}
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("job %q: not a usable directory name", name)
	}
	dir := filepath.Join(out, name)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	store, err := console.OpenStore(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return err
	}
	defer store.Close()
	logf, err := os.Create(filepath.Join(dir, "console.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	start := time.Now()
	sum, err := lava.Convert(ctx, run, lava.ConvertOptions{Store: store, Log: logf})
	n := 0
	if sum != nil {
		n = len(sum.Results)
		for _, p := range sum.Problems {
			env.Log.Warnf("job %s: %s", name, p)
		}
	}
	fmt.Fprintf(env.Stdout, "%s: %d results (%s)\n", filepath.Join(dir, "results.jsonl"), n, time.Since(start).Round(time.Millisecond))
	return err
}
