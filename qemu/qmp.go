package qemu

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// qmp is a client of the QEMU Machine Protocol on a connection QEMU
// opened to us (-chardev socket ... -mon mode=control). Commands are sent
// one at a time; asynchronous events between their answers are skipped.
type qmp struct {
	mu   sync.Mutex
	conn net.Conn
	rd   *bufio.Reader
}

// qmpTimeout bounds one exchange: QEMU answers query commands at once,
// even with its guest busy.
const qmpTimeout = 10 * time.Second

// newQMP reads QEMU's greeting and leaves capabilities negotiation mode.
func newQMP(conn net.Conn) (*qmp, error) {
	q := &qmp{conn: conn, rd: bufio.NewReader(conn)}
	conn.SetDeadline(time.Now().Add(qmpTimeout))
	defer conn.SetDeadline(time.Time{})
	var greeting struct {
		QMP *json.RawMessage `json:"QMP"`
	}
	line, err := q.rd.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("qmp greeting: %w", err)
	}
	if err := json.Unmarshal(line, &greeting); err != nil || greeting.QMP == nil {
		return nil, fmt.Errorf("qmp greeting: not QMP: %.80q", line)
	}
	if _, err := q.exec("qmp_capabilities"); err != nil {
		return nil, err
	}
	return q, nil
}

// exec runs a command without arguments and returns its "return" value.
func (q *qmp) exec(command string) (json.RawMessage, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.conn.SetDeadline(time.Now().Add(qmpTimeout))
	defer q.conn.SetDeadline(time.Time{})
	req, _ := json.Marshal(map[string]string{"execute": command})
	if _, err := q.conn.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("qmp %s: %w", command, err)
	}
	for {
		line, err := q.rd.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("qmp %s: %w", command, err)
		}
		var resp struct {
			Return json.RawMessage `json:"return"`
			Error  *struct {
				Class string `json:"class"`
				Desc  string `json:"desc"`
			} `json:"error"`
			Event string `json:"event"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("qmp %s: bad answer %.80q", command, line)
		}
		switch {
		case resp.Event != "":
			continue
		case resp.Error != nil:
			return nil, fmt.Errorf("qmp %s: %s: %s", command, resp.Error.Class, resp.Error.Desc)
		case resp.Return == nil:
			return nil, fmt.Errorf("qmp %s: an answer without a return value: %.80q", command, line)
		}
		return resp.Return, nil
	}
}

// BlockStats are QEMU's counters of one drive since QEMU started: what
// the guest's requests did to the disk image, counted by the emulator,
// independent of anything the guest says.
type BlockStats struct {
	Drive        string `json:"device"`
	ReadBytes    uint64 `json:"rd_bytes"`
	WriteBytes   uint64 `json:"wr_bytes"`
	WriteOps     uint64 `json:"wr_operations"`
	FlushOps     uint64 `json:"flush_operations"`
	UnmapBytes   uint64 `json:"unmap_bytes"`
	UnmapOps     uint64 `json:"unmap_operations"`
	FailedWrites uint64 `json:"failed_wr_operations"`
}

// blockStats asks QEMU for the counters of the drive with id drive.
func (q *qmp) blockStats(drive string) (BlockStats, error) {
	raw, err := q.exec("query-blockstats")
	if err != nil {
		return BlockStats{}, err
	}
	var all []struct {
		Device string     `json:"device"`
		Stats  BlockStats `json:"stats"`
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return BlockStats{}, fmt.Errorf("qmp query-blockstats: %w", err)
	}
	for _, d := range all {
		if d.Device == drive {
			d.Stats.Drive = drive
			return d.Stats, nil
		}
	}
	return BlockStats{}, errors.New("qmp query-blockstats: no drive " + drive)
}

func (q *qmp) close() error { return q.conn.Close() }
