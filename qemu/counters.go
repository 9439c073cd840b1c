package qemu

import (
	"bufio"
	"fmt"
	"net"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/wire/hostio"
)

// counterServer answers the guest's requests for QEMU's counters of a
// drive on the virtio serial port of hostio.PortName, reading them from
// QMP when each request comes.
type counterServer struct {
	qmp *qmp
	io  net.Conn
}

// serveCounters accepts QEMU's connections to the QMP and port sockets
// and answers the port until QEMU goes.
func serveCounters(qmpLn, ioLn *net.UnixListener, exited <-chan struct{}, drive string, log logrus.FieldLogger) (*counterServer, error) {
	qc, err := accept(qmpLn, exited)
	if err != nil {
		return nil, fmt.Errorf("QEMU did not connect to its QMP socket: %w", err)
	}
	q, err := newQMP(qc)
	if err != nil {
		qc.Close()
		return nil, err
	}
	ic, err := accept(ioLn, exited)
	if err != nil {
		q.close()
		return nil, fmt.Errorf("QEMU did not connect to the counters' port: %w", err)
	}
	s := &counterServer{qmp: q, io: ic}
	go s.serve(drive, log)
	return s, nil
}

func (s *counterServer) serve(drive string, log logrus.FieldLogger) {
	rd := bufio.NewReader(s.io)
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return
		}
		// A reset guest may leave half a line before its next request.
		if i := strings.LastIndex(line, "counters "); i > 0 {
			line = line[i:]
		}
		seq, err := hostio.ParseRequest(strings.TrimSpace(line))
		if err != nil {
			log.Debugf("qemu: counters port: %v", err)
			continue
		}
		st, err := s.qmp.blockStats(drive)
		var reply string
		if err != nil {
			reply = hostio.ErrorReply(seq, err)
		} else {
			reply = hostio.Reply(seq, hostio.Counters{Drive: drive, WriteBytes: st.WriteBytes, WriteOps: st.WriteOps,
				FlushOps: st.FlushOps, UnmapBytes: st.UnmapBytes, UnmapOps: st.UnmapOps})
		}
		if _, err := s.io.Write([]byte(reply)); err != nil {
			return
		}
	}
}

func (s *counterServer) close() {
	s.io.Close()
	s.qmp.close()
}
