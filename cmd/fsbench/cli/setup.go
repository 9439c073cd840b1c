package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/fsbench/fsbench/imagegen"
	"github.com/fsbench/fsbench/imagegen/payload"
)

// buildSetup is what the commands that build images (build, run, lava
// jobs) share before they start: the runner binary for the board, the
// timestamp of the images, the cache of downloaded packages and digests,
// and a context that an interrupt ends.
type buildSetup struct {
	runner string // the -runner flag, else $FSBENCH_RUNNER; "" finds it beside fsbench
	epoch  int64
	cache  string
	ctx    context.Context
	stop   context.CancelFunc
}

// runnerFlag registers -runner on fs.
func runnerFlag(fs *flag.FlagSet) *string {
	return fs.String("runner", "", "the fsbench-runner binary for the board (default: $FSBENCH_RUNNER, else fsbench-runner-<arch> beside fsbench)")
}

// newBuildSetup reads the environment for cmd, which names the command in
// messages. On a bad SOURCE_DATE_EPOCH it reports the error and returns
// ExitUsage. The caller calls stop when done.
func newBuildSetup(env *Env, cmd, runner string) (*buildSetup, int) {
	epoch, err := sourceDateEpoch(env.Environ)
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench %s: %s\n", cmd, err)
		return nil, ExitUsage
	}
	s := &buildSetup{runner: runner, epoch: epoch, cache: lookupEnv(env.Environ, "FSBENCH_CACHE")}
	if s.runner == "" {
		s.runner = lookupEnv(env.Environ, payload.RunnerEnv)
	}
	if s.cache == "" {
		s.cache = imagegen.DefaultCacheDir()
	}
	// From here on an interrupt is handled: sealing a plan digests every
	// input, which takes a while for a large tree.
	s.ctx, s.stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	return s, ExitOK
}

// defaultEpoch is 1980-01-01T00:00:00Z, the FAT epoch: the earliest time
// every filesystem fsbench builds can store (FAT cannot store 1970, and
// mtools then writes 2098).
const defaultEpoch = 315532800

// sourceDateEpoch reads SOURCE_DATE_EPOCH as the reproducible-builds
// specification defines it. Unset, it is defaultEpoch rather than the
// current time, so that builds are reproducible by default.
func sourceDateEpoch(environ []string) (int64, error) {
	v := lookupEnv(environ, "SOURCE_DATE_EPOCH")
	if v == "" {
		return defaultEpoch, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds since 1970", v)
	}
	return n, nil
}
