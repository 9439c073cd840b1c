package cli

import (
	"fmt"
	"os"

	"github.com/fsbench/fsbench/driver/crashstate"
	"github.com/fsbench/fsbench/wire/logwrites"
)

// runCrashState rebuilds one state of a crash_states campaign from the
// write log on a disk: the QEMU run's disk, or a copy of a board's
// storage.
func runCrashState(env *Env, args []string) int {
	fs := newFlagSet(env, "crash-state", "DISK",
		"Rebuild a state of a crash_states or update campaign from the write log its last\n"+
			"campaign left on DISK (a disk image: OUT/VARIANT/run/disk.img after 'fsbench run', or\n"+
			"a copy of a board's storage). For crash_states it is written as an image of the\n"+
			"tested partition, for the filesystem's own tools (e2fsck -fn state.img, btrfs check\n"+
			"--readonly state.img); for an update test (-on naming its partitions) as a copy of\n"+
			"DISK with them as the state leaves them, which boots as the board would after that\n"+
			"power cut. A state is the number of log entries replayed (a result's\n"+
			"first_bad_state), or a device model's state as a result names it (\"412+420-417\").")
	on := fs.String("on", "", "the partition the campaign tested (its GPT name or its number); for an update test its\npartitions, comma-separated, in the order of the test's on, slot_a, slot_b and env")
	logPart := fs.String("log", "", "the log partition: its GPT name or its number")
	state := fs.String("state", "", "the state to rebuild: the number of log entries replayed, or a model state's code")
	list := fs.Bool("list", false, "list the log's states (flushes, FUA writes and marks) instead")
	out := fs.String("o", "", "the image to write (replaced whole, never left half written)")
	sectorSize := fs.Int("sector-size", 512, "the disk's logical sector size")
	if code, done := parse(fs, args); done {
		return code
	}
	if fs.NArg() != 1 || *logPart == "" || (!*list && (*on == "" || *out == "" || *state == "")) {
		fmt.Fprintln(env.Stderr, "fsbench crash-state: give one DISK, -log, and either -list or -on, -state and -o")
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
	picked, _ := logwrites.ParseState(*state, len(d.Log.Entries))
	what := fmt.Sprintf("partition %d", d.Partition.Number)
	if len(d.Medium) > 0 {
		what = fmt.Sprintf("%s with its partitions %s", fs.Arg(0), *on)
	}
	fmt.Fprintf(env.Stdout, "%s: %s after %d of %d log entries (the last: %s)%s\n",
		*out, what, picked.Applied, len(d.Log.Entries), d.Log.Entries[picked.Applied-1], beyond(picked))
	return ExitOK
}

// beyond says what a model's state holds beyond its prefix.
func beyond(st logwrites.State) string {
	if st.Beyond == nil {
		return ""
	}
	return fmt.Sprintf(", then entries #%d to #%d as the device model keeps them (%s)", st.Applied, st.Beyond.Upto-1, st.Beyond)
}
