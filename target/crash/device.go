package crash

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/target/step"
	"github.com/fsbench/fsbench/wire/logwrites"
	"github.com/fsbench/fsbench/wire/runplan"
)

// A campaign checks its log under the spec's device model
// (wire/logwrites: prefix, reorder, torn; flushes honoured or ignored).
// Campaigns that record the same workload on the same partitions, one
// after the other (the tests of a spec that differ only in the model),
// check one recording: the first records, the others adopt its log while
// the log partition still holds it, so that the models are compared on
// the same writes.

// deviceModel reads the case's device model.
func deviceModel(p *runplan.Reader) logwrites.Device {
	model := logwrites.ModelPrefix
	if p.P.Has("device") {
		model = p.String("device")
	}
	return logwrites.Device{
		Model: model, IgnoreFlush: p.P.Has("flush") && p.String("flush") == "ignored", Writeback: int(p.Int("writeback")),
		Drop: int(p.Int("drop")), Samples: int(p.Int("samples")), Tear: p.Int("tear"), Seed: uint64(p.Int("seed")),
	}
}

// orderedMarks sets each of the workload's marks after a flush of the
// recorder's own (logwrites.OrderMark), so that the log holds the writes
// that completed before the mark ahead of it even when the filesystem
// sends no flush (nobarrier): a device that ignores flushes is then
// modelled with the marks where they happened. It returns what closes
// the device it flushes through.
func orderedMarks(node string, mark marker) (marker, func(), error) {
	f, err := os.Open(node)
	if err != nil {
		return nil, nil, err
	}
	return func(text string) error {
		if err := mark(logwrites.OrderMark); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("flushing %s to order the log: %w", node, err)
		}
		return mark(text)
	}, func() { f.Close() }, nil
}

// sharedRecording is the last recording on a log partition, for the
// campaigns after it.
type sharedRecording struct {
	Key     string       `json:"key"`
	Case    string       `json:"case"`
	Scratch crashScratch `json:"scratch"`
}

func (c *crashCampaign) sharedPath() string {
	return filepath.Join(c.e.StateDir, "crash-rec-"+step.SafeName(c.logPart.Name)+".json")
}

// recordingKey is what a recording depends on: the workload and the
// partitions, not the device model.
func (c *crashCampaign) recordingKey(iter int) string {
	w := c.work
	return fmt.Sprint(iter, w.kind, w.ops, w.size, w.large, w.noSync, w.dirOnly, c.part.Name, c.logPart.Name)
}

// adopt takes the recording another campaign left on the log partition
// when it recorded the same workload, and the log is still the one it
// recorded.
func (c *crashCampaign) adopt(sc *crashScratch, iter int) bool {
	b, err := os.ReadFile(c.sharedPath())
	var rec sharedRecording
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Key != c.recordingKey(iter) || rec.Case == c.e.Step.ID() {
		return false
	}
	l, f, err := c.openLog()
	if err != nil {
		return false
	}
	defer f.Close()
	if d, err := l.Digest(); err != nil || d != rec.Scratch.Digest {
		return false
	}
	*sc = rec.Scratch
	sc.Iter, sc.Interrupted, sc.Resumed, sc.Reused, sc.SharedFrom = iter, false, 0, 0, rec.Case
	c.e.Logf("%s: checking the recording of %s under this case's device model", c.e.Step.ID(), rec.Case)
	return true
}

// share leaves the campaign's recording for the test's other cases.
func (c *crashCampaign) share(sc *crashScratch) error {
	b, err := json.Marshal(sharedRecording{Key: c.recordingKey(sc.Iter), Case: c.e.Step.ID(), Scratch: *sc})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(c.sharedPath(), b, 0o644)
}
