package runner

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/runplan"
)

func init() {
	register("boot_time", step.Recipe{Schema: 1, Iterate: bootTime})
}

// ReadyMessage is the kernel log line that ends a boot on the target's
// clock; a runner started without the start hook writes it itself.
const ReadyMessage = runplan.ReadyMessage

// bootTime measures the current boot on the target's clock: from the kernel
// log line of the root mount to the ready line. The host measures the same
// interval from serial timestamps (root mount line to prompt). Every
// iteration but the last reboots afterwards; a boot in which other steps
// already ran is not timed, the runner reboots first.
func bootTime(ctx context.Context, e *step.Env, iter int) (*step.Outcome, error) {
	pattern := e.P.String("root_mount_pattern")
	if e.P.Err != nil {
		return nil, e.P.Err
	}
	if !e.FreshBoot {
		e.Logf("%s: rebooting to time a boot nothing else ran in", e.Step.ID())
		return &step.Outcome{Reboot: true}, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("root_mount_pattern: %w", err)
	}
	root, ready, err := bootMarks(re)
	if err != nil {
		return nil, err
	}
	out := &step.Outcome{RebootAfter: true}
	if ready < 0 {
		if err := linux.WriteKmsg(ReadyMessage); err != nil {
			return nil, fmt.Errorf("writing the kernel log: %w", err)
		}
		if root, ready, err = bootMarks(re); err != nil {
			return nil, err
		}
		out.Attr("ready_mark", "runner")
	}
	if root < 0 {
		return nil, fmt.Errorf("no kernel log line matches root_mount_pattern %q (was the log overwritten, or does the kernel print another line?)", pattern)
	}
	if ready < 0 {
		return nil, fmt.Errorf("the runner's own kernel log line is missing")
	}
	out.Metric("target_boot", usec(ready-root).Seconds(), "s")
	out.Metric("kernel_to_root", usec(root).Seconds(), "s")
	out.Metric("kernel_to_ready", usec(ready).Seconds(), "s")
	return out, nil
}

func usec(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

// bootMarks finds the kernel timestamps of the root mount and of the
// ready line after it, -1 for each one missing.
func bootMarks(rootMount *regexp.Regexp) (root, ready int64, err error) {
	recs, err := linux.ReadKmsg()
	if err != nil {
		return -1, -1, err
	}
	root, ready = -1, -1
	for _, r := range recs {
		if root < 0 && rootMount.MatchString(r.Msg) {
			root = r.Usec
		}
		if root >= 0 && ready < 0 && r.Msg == ReadyMessage {
			ready = r.Usec
		}
	}
	return root, ready, nil
}
