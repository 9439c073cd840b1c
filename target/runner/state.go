package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/wire/resultframe"
)

// StateFormat names the state file's schema.
const StateFormat = "fsbench-state/1"

// State is the runner's progress through a plan. It is rewritten atomically
// (temporary file, fsync, rename, fsync of the directory) at every change
// that matters, so after a reboot, a watchdog reset or a power cut the runner
// finds either the old or the new state, never a mix.
//
// A result is first put in Pending together with the progress that produced
// it, in one state write; only then is it appended to the journal and
// printed. A crash between the two writes leaves it in Pending, and the next
// start delivers it again: the journal skips a sequence number it already
// holds, and the host drops a frame whose (run, seq) it has seen. So every
// result is delivered, and stored once.
type State struct {
	Format      string `json:"format"`
	RunID       string `json:"run_id"`
	Fingerprint string `json:"fingerprint"`
	Seq         uint64 `json:"seq"`      // results emitted so far
	Step        int    `json:"step"`     // index of the current step
	Iter        int    `json:"iter"`     // the current step's next iteration, from 1
	Attempts    int    `json:"attempts"` // starts of that iteration that did not finish
	Finishing   bool   `json:"finishing,omitempty"`
	Boots       int    `json:"boots"`   // boots the runner has started in, this run
	BootID      string `json:"boot_id"` // the boot it last started in
	// BootWork is set once the runner has started a step in the current
	// boot; boot_time then reboots first, so it times a boot that nothing
	// else ran in.
	BootWork bool `json:"boot_work,omitempty"`
	// Scratch is the current step's own data kept across reboots.
	Scratch json.RawMessage `json:"scratch,omitempty"`
	// Samples are the current step's values of the metrics its settle
	// rule watches, by metric.
	Samples map[string][]float64 `json:"samples,omitempty"`
	Pending []resultframe.Result `json:"pending,omitempty"`
	Done    bool                 `json:"done,omitempty"`
}

type stateFile struct {
	path string
}

func (f stateFile) load() (*State, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	if st.Format != StateFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", f.path, st.Format, StateFormat)
	}
	return &st, nil
}

func (f stateFile) save(st *State) error {
	st.Format = StateFormat
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(f.path, append(b, '\n'), 0o644)
}

// removePartials deletes temporary files a power cut left beside path.
func removePartials(path string) {
	dir, base := filepath.Split(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "."+base+".partial-") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
