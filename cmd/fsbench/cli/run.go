package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/fsbench/fsbench/capture"
	"github.com/fsbench/fsbench/driver"
	"github.com/fsbench/fsbench/plan"
	"github.com/fsbench/fsbench/qemu/kernel"
	"github.com/fsbench/fsbench/wire/resultframe"
)

func runRun(env *Env, args []string) int {
	fs := newFlagSet(env, "run", "SPEC",
		"Build every variant (or one), boot it on the target, follow its console through\nthe whole test plan, reboots included, and print a table of the results. Each\nvariant's results (results.jsonl) and console log (console.log, grabserial style)\nare kept in OUT/<variant>/run/. The default target is QEMU with the current Debian\nkernel, fetched with apt-get download; KVM is used when it works, TCG otherwise.\nWith -target board the image is written with -flash, the board is switched on with\n-power-cycle (or by hand) and its console is read from -port.")
	var sf specFlags
	sf.register(fs)
	f := registerRunFlags(fs)
	if code, done := parse(fs, args); done {
		return code
	}
	kreq, msg := f.check()
	if msg != "" {
		fmt.Fprintf(env.Stderr, "fsbench run: %s\n", msg)
		return ExitUsage
	}
	path, code := oneSpec(env, fs, &sf)
	if code != ExitOK {
		return code
	}
	bs, code := newBuildSetup(env, "run", *f.runner)
	if code != ExitOK {
		return code
	}
	defer bs.stop()
	s, p, variants, code := loadVariants(env, path, &sf, *f.variant)
	if code != ExitOK {
		return code
	}
	job := f.job(env, bs, p, s.Dir, variants, kreq)
	if *f.target == "board" && len(variants) > 1 && len(job.Board.Flash) == 0 && job.Board.FlashByHand == nil {
		fmt.Fprintf(env.Stderr, "fsbench run: %d variants need -flash to put each image on the board in turn (a command, or \"manual\" to write it by hand; or pick one with -variant)\n", len(variants))
		return ExitUsage
	}
	return runJob(bs.ctx, env, job, *f.out)
}

// runFlags are run's flags.
type runFlags struct {
	out, variant, target, port, flash, powerCycle, powerOff *string
	baud                                                    *int
	rtscts                                                  *bool
	accel, disk, boot, kernel, runner                       *string
	memory, cpus, jobs                                      *int
	timeout, silence                                        *time.Duration
}

func registerRunFlags(fs *flag.FlagSet) *runFlags {
	return &runFlags{
		out:        fs.String("o", "out", "output directory"),
		variant:    fs.String("variant", "", "only this variant"),
		target:     fs.String("target", "qemu", "qemu, or board (a real board on -port)"),
		port:       fs.String("port", "", "board: its console: a serial port (/dev/ttyUSB0) or a console server (rfc2217://HOST:PORT, telnet://HOST:PORT, tcp://HOST:PORT)"),
		baud:       fs.Int("baud", capture.DefaultBaud, "board: baud rate of -port"),
		rtscts:     fs.Bool("rtscts", false, "board: hardware flow control on -port"),
		flash:      fs.String("flash", "", "board: command that writes the image, split at spaces and run without a shell; {image} and {bmap} stand for the files (e.g. \"bmaptool copy --bmap {bmap} {image} /dev/sdX\"); \"manual\": fsbench says which image to write and waits for Enter (docs/boards.md has a recipe for each kind of storage)"),
		powerOff:   fs.String("power-off", "", "board: command that switches the board off, run before each -flash so that the running image does not write to the storage being flashed"),
		powerCycle: fs.String("power-cycle", "", "board: command that switches the board off and on, split at spaces and run without a shell (default: power it on by hand)"),
		accel:      fs.String("accel", "auto", "QEMU accelerator: auto (KVM when a probe boot works), kvm or tcg"),
		disk:       fs.String("disk", "virtio", "QEMU disk: virtio, nvme or sd (an SD card on an SDHCI controller)"),
		memory:     fs.Int("memory", 512, "QEMU memory in MiB"),
		cpus:       fs.Int("cpus", 1, "QEMU vCPUs per variant (under TCG each is a host thread: with -j, mind the host's CPUs)"),
		boot:       fs.String("boot", "direct", "QEMU: direct (QEMU loads Debian's kernel and fsbench's initramfs) or uboot (Debian's u-boot-qemu boots the image alone, from the kernel and extlinux.conf or boot.scr its board's boot block put in it)"),
		kernel:     fs.String("kernel", "", "QEMU: the Debian kernel to boot, PACKAGE[=VERSION] or =VERSION: linux-image-rt-amd64, linux-image-amd64=6.1.176-1 (apt-cache madison linux-image-amd64 lists the versions; default: the architecture's metapackage at apt's candidate version)"),
		jobs:       fs.Int("j", 0, "variants run at once (default: one per two CPUs)"),
		timeout:    fs.Duration("timeout", 0, "longest run of one variant (default: from the plan's step timeouts)"),
		silence:    fs.Duration("silence", 0, "end a variant whose console stays quiet this long (default: the plan's longest step timeout and 3 minutes)"),
		runner:     runnerFlag(fs),
	}
}

// check refuses flags that do not go together, and reads -kernel.
func (f *runFlags) check() (kernel.Request, string) {
	switch {
	case *f.target != "qemu" && *f.target != "board":
		return kernel.Request{}, fmt.Sprintf("-target %q: use qemu or board", *f.target)
	case *f.target == "board" && *f.port == "":
		return kernel.Request{}, "-target board needs -port, the serial port of the board's console"
	case *f.boot != driver.BootDirect && *f.boot != driver.BootUBoot:
		return kernel.Request{}, fmt.Sprintf("-boot %q: use direct or uboot", *f.boot)
	case *f.kernel != "" && *f.target != "qemu":
		return kernel.Request{}, "-kernel is for the QEMU target; a board boots its own kernel"
	case *f.disk != "virtio" && *f.disk != "nvme" && *f.disk != "sd":
		return kernel.Request{}, fmt.Sprintf("-disk %q: use virtio, nvme or sd", *f.disk)
	}
	kreq, err := kernel.ParseRequest(*f.kernel)
	if err != nil {
		return kernel.Request{}, "-" + err.Error()
	}
	return kreq, ""
}

// job is the driver's job for the flags.
func (f *runFlags) job(env *Env, bs *buildSetup, p *plan.Plan, specDir string, variants []plan.Variant, kreq kernel.Request) driver.Job {
	jobs := *f.jobs
	if jobs <= 0 {
		jobs = max(1, runtime.NumCPU()/2)
	}
	var mu sync.Mutex
	job := driver.Job{Plan: p, SpecDir: specDir, Variants: variants, OutDir: *f.out, Epoch: bs.epoch,
		Runner: bs.runner, CacheDir: bs.cache, Parallel: jobs, Log: env.Log, Timeout: *f.timeout, Silence: *f.silence,
		QEMU: driver.QEMU{Accel: *f.accel, Disk: *f.disk, MemoryMiB: *f.memory, CPUs: *f.cpus, Kernel: kreq, Boot: *f.boot},
		OnResult: func(variant string, r resultframe.Result) {
			if r.Status != resultframe.StatusOK && r.Attrs["not_applicable"] == "" {
				mu.Lock()
				fmt.Fprintf(env.Stderr, "fsbench run: %s: %s %s/%s #%d %s: %s\n", variant, r.Recipe, r.Name, r.Case, r.Iteration, r.Status, r.Error)
				mu.Unlock()
			}
		}}
	if *f.target == "board" {
		job.Board = &driver.Board{Port: *f.port, Baud: *f.baud, RTSCTS: *f.rtscts,
			Flash: strings.Fields(*f.flash), PowerCycle: strings.Fields(*f.powerCycle), PowerOff: strings.Fields(*f.powerOff)}
		if *f.flash == "manual" {
			job.Board.Flash, job.Board.FlashByHand = nil, flashByHand(env)
		}
	}
	return job
}

// flashByHand says which image to write and waits for the user's Enter
// on stdin.
func flashByHand(env *Env) func(ctx context.Context, image, bmap string) error {
	lines := make(chan error)
	var once sync.Once
	read := func() {
		in := bufio.NewReader(env.Stdin)
		for {
			_, err := in.ReadString('\n')
			if errors.Is(err, io.EOF) {
				err = errors.New("standard input ended before Enter: nobody could say the image was written")
			}
			lines <- err
			if err != nil {
				return
			}
		}
	}
	var ended error
	return func(ctx context.Context, image, bmap string) error {
		fmt.Fprintf(env.Stderr, "fsbench run: write %s onto the board's storage now (a card in a reader: bmaptool copy --bmap %s %s /dev/sdX; "+
			"other ways in docs/boards.md), put it back, then press Enter here\n", image, bmap, image)
		if ended != nil {
			return ended
		}
		once.Do(func() { go read() })
		select {
		case err := <-lines:
			ended = err
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// runJob runs job and prints the table of its results, then each
// variant's time.
func runJob(ctx context.Context, env *Env, job driver.Job, out string) int {
	start := time.Now()
	var results []variantResults
	// Each variant's time, after the table: the tabwriter holds the
	// lines until its Flush.
	took := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	code := ExitOK
	for _, run := range driver.Run(ctx, job) {
		if run.Took > 0 {
			fmt.Fprintf(took, "  %s\t%s\t(build %s)\n", run.Variant, run.Took.Round(time.Second), run.Built.Round(100*time.Millisecond))
		}
		if o := run.Outcome; o != nil && o.Summary != nil {
			results = append(results, variantResults{name: run.Variant, results: o.Summary.Results})
		}
		switch {
		case run.Err != nil && ctx.Err() != nil:
			fmt.Fprintf(env.Stderr, "fsbench run: variant %s: interrupted\n", run.Variant)
			code = ExitInterrupted
		case run.Err != nil:
			fmt.Fprintf(env.Stderr, "fsbench run: variant %s: %s\n", run.Variant, run.Err)
			code = ExitBuild
		}
	}
	writeSummary(env.Stdout, results)
	fmt.Fprintf(env.Stdout, "\n%d variant(s) in %s; results in %s/<variant>/run/results.jsonl\n",
		len(job.Variants), time.Since(start).Round(time.Second), out)
	took.Flush()
	return code
}
