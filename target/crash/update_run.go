package crash

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsbench/fsbench/target/linux"
	"github.com/fsbench/fsbench/wire/runplan"
)

// UpdaterMark starts the marks that carry the updater's output into the
// write log, a line each as it is printed, so that a state says which
// step of the update the power cut interrupted. The workload's marks
// start with markPrefix; these are not promises of durability.
const UpdaterMark = "upd:"

// runUpdate runs the updater, and beside it the application's appends
// to the data partition (mounted at dir), each fsynced and marked in the
// log as crash_states' fsync workload does.
func (u *updateCampaign) runUpdate(ctx context.Context, dir, lwNode string, mark marker) (err error) {
	// fw_setenv and fw_printenv (RAUC's U-Boot backend runs them) find
	// the environment's copies here.
	env := u.regions[regEnv].node
	conf := fmt.Sprintf("%s 0x%x 0x%x\n", env, u.envOff, u.envSize)
	if u.redundant {
		conf += fmt.Sprintf("%s 0x%x 0x%x\n", env, u.envOff+u.envSize, u.envSize)
	}
	if len(u.envFiles) > 0 {
		// The environment's filesystem is mounted, as the board mounts
		// its boot partition, and its files are the copies.
		envDir, err := u.mountEnv(env, 0)
		if err != nil {
			return err
		}
		defer func() {
			if uerr := linux.UnmountWithin(envDir, 2*time.Minute); err == nil {
				err = uerr
			}
		}()
		conf = ""
		for _, f := range u.envFiles {
			conf += fmt.Sprintf("%s 0x0 0x%x\n", filepath.Join(envDir, f), u.envSize)
		}
	}
	if err := os.WriteFile("/etc/fw_env.config", []byte(conf), 0o644); err != nil {
		return err
	}
	// The application's marks come each after a flush of the recorder's
	// (orderedMarks); the updater's lines must not fall between the two.
	ordered, closeDev, err := orderedMarks(lwNode, mark)
	if err != nil {
		return err
	}
	defer closeDev()
	var mu sync.Mutex
	locked := func(m marker) marker {
		return func(text string) error {
			mu.Lock()
			defer mu.Unlock()
			return m(text)
		}
	}
	appDone := make(chan error, 1)
	go func() {
		var err error
		if u.work.ops > 0 {
			err = u.work.run(ctx, u.e.WorkDirIn(dir), locked(ordered))
		}
		appDone <- err
	}()
	start := time.Now()
	u.e.Logf("%s: updating slot B (%s) while the application appends %d times", u.e.Step.ID(), u.updater, u.work.ops)
	out, err := u.runUpdater(ctx, env, locked(mark))
	u.updateTime = time.Since(start).Seconds()
	if err != nil {
		s := strings.TrimSpace(out)
		err = fmt.Errorf("the update: %v: %s", err, s[max(0, len(s)-800):])
	}
	if aerr := <-appDone; err == nil && aerr != nil {
		err = fmt.Errorf("the application's appends: %w", aerr)
	}
	return err
}

// envMountDir is where the environment's filesystem is mounted.
const envMountDir = "/run/fsbench-update-env"

// mountEnv mounts the environment's filesystem on dev at envMountDir,
// with flags (read-only for a judgement, which reads what U-Boot would:
// an ext4 journal is not replayed).
func (u *updateCampaign) mountEnv(dev string, flags uintptr) (string, error) {
	part := u.regions[regEnv].part
	if err := os.MkdirAll(envMountDir, 0o755); err != nil {
		return "", err
	}
	data := ""
	if flags&syscall.MS_RDONLY != 0 && strings.HasPrefix(part.FS, "ext") {
		data = "noload"
	}
	if _, err := linux.Mount(dev, envMountDir, part.FS, flags, data); err != nil {
		return "", fmt.Errorf("mounting the environment's %s filesystem: %w", part.FS, err)
	}
	return envMountDir, nil
}

// runUpdater runs the update command, each line it prints marked in the
// log, and returns what it printed.
func (u *updateCampaign) runUpdater(ctx context.Context, env string, mark marker) (string, error) {
	argv := u.command
	if u.updater != "custom" {
		// The host's script runs the updater: RAUC's service and `rauc
		// install`, or swupdate.
		argv = []string{"sh", filepath.Join(u.dir, runplan.UpdateScript)}
	}
	bundle := runplan.UpdateBundle
	if u.updater == "swupdate" {
		bundle = runplan.UpdateSWU
	}
	if len(argv) == 0 {
		return "", fmt.Errorf("updater = \"custom\" has no command")
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = append(os.Environ(), "FSBENCH_DIR="+u.dir,
		"FSBENCH_IMAGE="+filepath.Join(u.dir, runplan.UpdateNewImage),
		"FSBENCH_BUNDLE="+filepath.Join(u.dir, bundle),
		"FSBENCH_SLOT_A="+u.regions[regA].node,
		"FSBENCH_SLOT_B="+u.regions[regB].node,
		"FSBENCH_ENV="+env)
	pr, pw := io.Pipe()
	c.Stdout, c.Stderr = pw, pw
	var all strings.Builder
	lines := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var err error
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if err == nil {
				err = mark(updaterMark(sc.Text()))
			}
		}
		io.Copy(io.Discard, pr)
		lines <- err
	}()
	err := c.Run()
	pw.Close()
	if merr := <-lines; err == nil && merr != nil {
		err = fmt.Errorf("marking the updater's output in the write log: %w", merr)
	}
	return all.String(), err
}

// updaterMark is a line of the updater's as one word of a device-mapper
// message (which splits on spaces), within a log entry's sector.
func updaterMark(line string) string {
	w := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, strings.TrimSpace(line))
	if len(w) > 200 {
		w = w[:200]
	}
	return UpdaterMark + w
}

// updaterSteps gives, for each count of entries, the updater's last line
// before them.
func updaterSteps(marks []string) []string {
	out := make([]string, len(marks)+1)
	for i, m := range marks {
		out[i+1] = out[i]
		if rest, ok := strings.CutPrefix(m, UpdaterMark); ok {
			out[i+1] = strings.ReplaceAll(rest, "_", " ")
		}
	}
	return out
}
