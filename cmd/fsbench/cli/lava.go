package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/driver/console"
	"github.com/fsbench/fsbench/driver/lava"
	"github.com/fsbench/fsbench/qemu/kernel"
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
	f := registerLAVAFlags(fs)
	if code, done := parse(fs, args); done {
		return code
	}
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "fsbench lava jobs: "+format+"\n", args...)
		return code
	}
	opt, kreq, msg := f.options()
	if msg != "" {
		return fail(ExitUsage, "%s", msg)
	}
	server, msg := f.server(env)
	if msg != "" {
		return fail(ExitUsage, "%s", msg)
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	bs, code := newBuildSetup(env, "lava jobs", *f.runner)
	if code != ExitOK {
		return code
	}
	defer bs.stop()
	ctx := bs.ctx
	s, p, variants, code := loadVariants(env, path, &sf, *f.variant)
	if code != ExitOK {
		return code
	}
	b := lava.Build{Out: *f.out, SpecDir: s.Dir, Runner: bs.runner, Cache: bs.cache, Epoch: bs.epoch, Kernel: kreq, Log: env.Log}
	var jobs []lava.Job
	for _, v := range variants {
		js, err := lava.BuildVariant(ctx, p, v, opt, b)
		if err != nil {
			if ctx.Err() != nil {
				return fail(ExitInterrupted, "interrupted at variant %s", v.Name)
			}
			return fail(ExitBuild, "%s", err)
		}
		jobs = append(jobs, js...)
	}
	dir := filepath.Join(*f.out, lava.Dir)
	comment := func(j lava.Job) string {
		return fmt.Sprintf("fsbench %s: LAVA job for variant %s of %s", version(), j.Variant, p.Spec)
	}
	paths, files, err := lava.WriteJobs(ctx, dir, jobs, comment, *f.deviceDict)
	var schema lava.SchemaErrors
	switch {
	case errors.As(err, &schema):
		fmt.Fprintln(env.Stderr, "fsbench lava jobs: "+strings.ReplaceAll(schema.Error(), "\n", "\nfsbench lava jobs: "))
		return ExitBuild
	case err != nil:
		return fail(ExitBuild, "%s", err)
	}
	for _, path := range paths {
		fmt.Fprintln(env.Stdout, path)
	}
	if server == nil {
		return ExitOK
	}
	_, err = lava.SubmitJobs(ctx, server, dir, jobs, files, func(j lava.Job, id int) {
		fmt.Fprintf(env.Stdout, "%s: job %d: %s/scheduler/job/%d\n", j.File, id, server.URL, id)
	})
	if err != nil {
		return fail(ExitBuild, "%s", err)
	}
	return ExitOK
}

// lavaFlags are lava jobs' flags.
type lavaFlags struct {
	out, variant, artifacts, deviceType, tags, boot, accel *string
	kernel, priority, deviceDict, submit, runner           *string
	memory, repeat                                         *int
}

func registerLAVAFlags(fs *flag.FlagSet) *lavaFlags {
	return &lavaFlags{
		out:        fs.String("o", "out", "output directory"),
		variant:    fs.String("variant", "", "only this variant"),
		artifacts:  fs.String("artifacts", "", "URL under which the lab finds the output directory's files (http://, https://, or file:// for a dispatcher on this host)"),
		deviceType: fs.String("device-type", "", "LAVA device type (default: the board's lava block)"),
		tags:       fs.String("tags", "", "comma-separated LAVA device tags (default: the board's lava block)"),
		boot:       fs.String("boot", lava.BootDirect, "qemu device: direct (Debian's kernel and fsbench's initramfs) or uboot (u-boot-qemu boots the image from its boot block's files)"),
		accel:      fs.String("accel", "tcg", "qemu device: tcg or kvm"),
		memory:     fs.Int("memory", 512, "qemu device: memory in MiB"),
		kernel:     fs.String("kernel", "", "qemu device, direct boot: the Debian kernel, PACKAGE[=VERSION] or =VERSION (as for 'fsbench run')"),
		repeat:     fs.Int("repeat", 1, "jobs per variant, which the lab runs on as many devices"),
		priority:   fs.String("priority", "medium", "LAVA priority: high, medium or low"),
		deviceDict: fs.String("device-dict", "", "a rendered LAVA device dictionary: check every job with lava-run --validate against it too"),
		submit:     fs.String("submit", "", "LAVA server URL (https://lava.example.com): submit the jobs, with the token in $"+lava.TokenEnv),
		runner:     runnerFlag(fs),
	}
}

// options checks the flags and returns the jobs' options, or why not.
func (f *lavaFlags) options() (lava.Options, kernel.Request, string) {
	switch {
	case *f.artifacts == "":
		return lava.Options{}, kernel.Request{}, fmt.Sprintf("-artifacts is missing: the URL under which the lab downloads %s's files, such as https://files.example.com/fsbench/%s (or file://%s for a dispatcher on this host)", *f.out, *f.out, absOr(*f.out))
	case *f.boot != lava.BootDirect && *f.boot != lava.BootUBoot:
		return lava.Options{}, kernel.Request{}, fmt.Sprintf("-boot %q: use direct or uboot", *f.boot)
	case *f.accel != "tcg" && *f.accel != "kvm":
		return lava.Options{}, kernel.Request{}, fmt.Sprintf("-accel %q: use tcg or kvm", *f.accel)
	case *f.priority != "high" && *f.priority != "medium" && *f.priority != "low":
		return lava.Options{}, kernel.Request{}, fmt.Sprintf("-priority %q: use high, medium or low", *f.priority)
	case *f.repeat < 1 || *f.repeat > 1000:
		return lava.Options{}, kernel.Request{}, fmt.Sprintf("-repeat %d: use 1 to 1000", *f.repeat)
	}
	kreq, err := kernel.ParseRequest(*f.kernel)
	if err != nil {
		return lava.Options{}, kernel.Request{}, "-" + err.Error()
	}
	opt := lava.Options{Artifacts: *f.artifacts, DeviceType: *f.deviceType, Boot: *f.boot, Accel: *f.accel, MemoryMiB: *f.memory,
		Repeat: *f.repeat, Priority: *f.priority, Version: version()}
	if *f.tags != "" {
		opt.Tags = strings.Split(*f.tags, ",")
	}
	return opt, kreq, ""
}

// server is the LAVA server of -submit, nil without it.
func (f *lavaFlags) server(env *Env) (*lava.Server, string) {
	if *f.submit == "" {
		return nil, ""
	}
	token := lookupEnv(env.Environ, lava.TokenEnv)
	if token == "" {
		return nil, fmt.Sprintf("-submit needs a LAVA API token in $%s (a server's user profile makes one); it is never read from a flag or a spec", lava.TokenEnv)
	}
	server, err := lava.NewServer(*f.submit, token)
	if err != nil {
		return nil, err.Error()
	}
	return server, ""
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
	f := &lavaResultsFlags{
		out:        fs.String("o", filepath.Join("out", "lava-results"), "output directory"),
		server:     fs.String("server", "", "LAVA server URL: the arguments are job ids"),
		jobs:       fs.String("jobs", "", "the submitted.json of 'fsbench lava jobs -submit': fetch its jobs from its server"),
		jobID:      fs.String("job-id", "", "LOG: the job's id, for the results' context"),
		device:     fs.String("device", "", "LOG: the device the job ran on, for the results' context"),
		deviceType: fs.String("device-type", "", "LOG: the device's type"),
	}
	if code, done := parse(fs, args); done {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sources, code, msg := f.sources(ctx, env, fs.Args())
	if msg != "" {
		fmt.Fprintf(env.Stderr, "fsbench lava results: %s\n", msg)
		return code
	}
	code = ExitOK
	for _, src := range sources {
		if err := convertLAVA(ctx, env, *f.out, src.name, src.load); err != nil {
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

// lavaResultsFlags are lava results' flags.
type lavaResultsFlags struct {
	out, server, jobs, jobID, device, deviceType *string
}

// lavaSource is one job to read: its name, for its directory, and how to
// load it.
type lavaSource struct {
	name string
	load func() (lava.Run, error)
}

// sources are the jobs the flags and arguments name: logs, or job ids on a
// server (given, or from -jobs). On a usage error it returns the exit code
// and the message.
func (f *lavaResultsFlags) sources(ctx context.Context, env *Env, args []string) ([]lavaSource, int, string) {
	var ids []int
	switch {
	case *f.jobs != "":
		rec, err := lava.ReadSubmitted(*f.jobs)
		if err != nil {
			return nil, ExitIO, err.Error()
		}
		*f.server = cmp.Or(*f.server, rec.Server)
		for _, j := range rec.Jobs {
			ids = append(ids, j.ID)
		}
		if len(args) > 0 {
			return nil, ExitUsage, "-jobs names the jobs; give no other arguments"
		}
	case *f.server != "":
		for _, a := range args {
			id, err := strconv.Atoi(a)
			if err != nil || id <= 0 {
				return nil, ExitUsage, fmt.Sprintf("with -server the arguments are job ids; %q is not one", a)
			}
			ids = append(ids, id)
		}
	}
	if *f.server == "" {
		return f.logSources(args)
	}
	server, err := lava.NewServer(*f.server, lookupEnv(env.Environ, lava.TokenEnv))
	if err != nil {
		return nil, ExitUsage, err.Error()
	}
	if len(ids) == 0 {
		return nil, ExitUsage, "no job ids to fetch"
	}
	var sources []lavaSource
	for _, id := range ids {
		sources = append(sources, lavaSource{name: strconv.Itoa(id), load: func() (lava.Run, error) {
			r, j, err := server.Fetch(ctx, id)
			if err == nil && j.Health != "Complete" {
				env.Log.Warnf("job %d is %s: %s", id, j.Health, cmp.Or(j.FailureComment, "no failure comment"))
			}
			return r, err
		}})
	}
	return sources, ExitOK, ""
}

// logSources are the LAVA logs named by args.
func (f *lavaResultsFlags) logSources(args []string) ([]lavaSource, int, string) {
	if len(args) == 0 {
		return nil, ExitUsage, "expected LAVA logs, or -server with job ids"
	}
	if len(args) > 1 && (*f.jobID != "" || *f.device != "") {
		return nil, ExitUsage, "-job-id and -device describe one log; give one LOG with them"
	}
	var sources []lavaSource
	for _, a := range args {
		name := cmp.Or(*f.jobID, strings.TrimSuffix(filepath.Base(a), filepath.Ext(a)))
		sources = append(sources, lavaSource{name: name, load: func() (lava.Run, error) {
			fh, err := os.Open(a)
			if err != nil {
				return lava.Run{}, err
			}
			defer fh.Close()
			entries, err := lava.ReadLog(fh)
			if err != nil {
				return lava.Run{}, fmt.Errorf("%s: %w", a, err)
			}
			return lava.Run{JobID: *f.jobID, Device: *f.device, DeviceType: *f.deviceType, Entries: entries}, nil
		}})
	}
	return sources, ExitOK, ""
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
