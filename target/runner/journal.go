package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// journal is the results file on the target: one JSON result per line,
// appended and synced one by one. A power cut can leave a torn last line;
// opening the journal cuts it off (its result is still pending in the state
// file and is appended again).
type journal struct {
	f    *os.File
	last uint64 // sequence number of the last complete line
}

func openJournal(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f}
	if err := j.recover(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return j, nil
}

func (j *journal) recover() error {
	b, err := os.ReadFile(j.f.Name())
	if err != nil {
		return err
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	if end < len(b) {
		if err := j.f.Truncate(int64(end)); err != nil {
			return err
		}
		if err := j.f.Sync(); err != nil {
			return err
		}
	}
	b = b[:end]
	for len(b) > 0 {
		i := bytes.LastIndexByte(b[:len(b)-1], '\n')
		line := b[i+1:]
		var r resultframe.Result
		if err := json.Unmarshal(line, &r); err == nil {
			j.last = r.Seq
			break
		}
		// A line that does not parse is left in place for the reader to
		// see; the one before it tells the sequence number.
		b = b[:i+1]
	}
	_, err = j.f.Seek(0, 2)
	return err
}

// append writes r unless the journal already holds its sequence number.
func (j *journal) append(r resultframe.Result) error {
	if r.Seq <= j.last {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.last = r.Seq
	return nil
}

func (j *journal) close() error { return j.f.Close() }
