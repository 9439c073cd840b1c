package crash

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsbench/fsbench/wire/runplan"
)

// runUpdate runs the updater, and beside it the application's appends
// to the data partition (mounted at dir), each fsynced and marked in the
// log as crash_states' fsync workload does.
func (u *updateCampaign) runUpdate(ctx context.Context, dir, lwNode string, mark marker) error {
	// fw_setenv and fw_printenv (RAUC's U-Boot backend runs them) find
	// the environment's copies here.
	env := u.regions[regEnv].node
	conf := fmt.Sprintf("%s 0x%x 0x%x\n", env, u.envOff, u.envSize)
	if u.redundant {
		conf += fmt.Sprintf("%s 0x%x 0x%x\n", env, u.envOff+u.envSize, u.envSize)
	}
	if err := os.WriteFile("/etc/fw_env.config", []byte(conf), 0o644); err != nil {
		return err
	}
	appDone := make(chan error, 1)
	go func() {
		var err error
		if u.work.ops > 0 {
			err = u.runOrdered(ctx, u.e.WorkDirIn(dir), lwNode, mark)
		}
		appDone <- err
	}()
	start := time.Now()
	u.e.Logf("%s: updating slot B (%s) while the application appends %d times", u.e.Step.ID(), u.updater, u.work.ops)
	argv := u.command
	if u.updater != "custom" {
		// The host's script runs RAUC's service and `rauc install`.
		argv = []string{"sh", filepath.Join(u.dir, runplan.UpdateScript)}
	}
	if len(argv) == 0 {
		return fmt.Errorf("updater = \"custom\" has no command")
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = append(os.Environ(), "FSBENCH_DIR="+u.dir,
		"FSBENCH_IMAGE="+filepath.Join(u.dir, runplan.UpdateNewImage),
		"FSBENCH_BUNDLE="+filepath.Join(u.dir, runplan.UpdateBundle),
		"FSBENCH_SLOT_A="+u.regions[regA].node,
		"FSBENCH_SLOT_B="+u.regions[regB].node,
		"FSBENCH_ENV="+env)
	out, err := c.CombinedOutput()
	u.updateTime = time.Since(start).Seconds()
	if err != nil {
		s := strings.TrimSpace(string(out))
		err = fmt.Errorf("the update (%s): %v: %s", argv[0], err, s[max(0, len(s)-800):])
	}
	if aerr := <-appDone; err == nil && aerr != nil {
		err = fmt.Errorf("the application's appends: %w", aerr)
	}
	return err
}
