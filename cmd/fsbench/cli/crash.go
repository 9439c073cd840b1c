package cli

import (
	"fmt"
	"os"

	"github.com/fsbench/fsbench/driver/crashstate"
)

// runCrashState rebuilds one state of a crash_states campaign from the
// write log on a disk: the QEMU run's disk, or a copy of a board's
// storage.
func runCrashState(env *Env, args []string) int {
	fs := newFlagSet(env, "crash-state", "DISK",
		"Rebuild a state of a crash_states campaign from the write log its last campaign left\n"+
			"on DISK (a disk image: OUT/VARIANT/run/disk.img after 'fsbench run', or a copy of a\n"+
			"board's storage) and write it as an image of the tested partition, for the\n"+
			"filesystem's own tools (e2fsck -fn state.img, btrfs check --readonly state.img).\n"+
			"A state is the number of log entries replayed: a result's first_bad_state.")
	on := fs.String("on", "", "the partition the campaign tested: its GPT name or its number")
	logPart := fs.String("log", "", "the log partition: its GPT name or its number")
	state := fs.Int("state", 0, "the state to rebuild: the number of log entries replayed")
	list := fs.Bool("list", false, "list the log's states (flushes, FUA writes and marks) instead")
	out := fs.String("o", "", "the partition image to write (replaced whole, never left half written)")
	sectorSize := fs.Int("sector-size", 512, "the disk's logical sector size")
	if code, done := parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 || *logPart == "" || (!*list && (*on == "" || *out == "" || *state < 1)) {
		fmt.Fprintln(env.Stderr, "fsbench crash-state: give one DISK, -log, and either -list or -on, -state (at least 1) and -o")
		fs.Usage()
		return ExitUsage
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench crash-state: %v\n", err)
		return ExitIO
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintf(env.Stderr, "fsbench crash-state: %v\n", err)
		return ExitIO
	}
	d, err := crashstate.Open(f, st.Size(), *sectorSize, *on, *logPart)
	if err != nil {
		// The disk's table or log is not what a campaign leaves.
		fmt.Fprintf(env.Stderr, "fsbench crash-state: %s: %v\n", fs.Arg(0), err)
		return ExitInvalid
	}
	if *list {
		states := d.States()
		fmt.Fprintf(env.Stdout, "%d log entries, %d states after the filesystem's creation\n%8s  %-5s  %s\n",
			len(d.Log.Entries), len(states), "state", "point", "last entry; last workload mark")
		for _, s := range states {
			fmt.Fprintf(env.Stdout, "%8d  %-5s  %s; %s\n", s.Applied, s.Point, s.Last, s.LastMark)
		}
		return ExitOK
	}
	if err := d.Export(*out, *state); err != nil {
		fmt.Fprintf(env.Stderr, "fsbench crash-state: %v\n", err)
		return ExitIO
	}
	fmt.Fprintf(env.Stdout, "%s: partition %d after %d of %d log entries (the last: %s)\n",
		*out, d.Partition.Number, *state, len(d.Log.Entries), d.Log.Entries[*state-1])
	return ExitOK
}
