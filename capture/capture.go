package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"
)

// Options configures Capture. The zero value captures until the input ends
// with the default milestones and no output.
type Options struct {
	// Idle is the partial-line delay of the Reader (0: DefaultIdle).
	Idle time.Duration
	// Reset sets the time base to the start of every line it matches
	// (anywhere in the line), like grabserial -m. Before the first match the
	// base is the first byte received.
	Reset *regexp.Regexp
	// Quit stops the capture after the first line it matches (-q).
	Quit *regexp.Regexp
	// Timeout stops the capture this long after it started (-e); 0: none.
	Timeout time.Duration
	// Out receives "[abs delta] line" text; nil: none.
	Out io.Writer
	// Raw receives the exact byte stream; nil: none.
	Raw io.Writer
	// Milestones replaces DefaultMilestones when non-nil.
	Milestones []Milestone
	// Priority is the scheduling the reading goroutine's threads ask for.
	Priority Priority
	// KeepLines keeps every line in Result.Lines, for a caller that reads
	// them afterwards; without it a capture of any length holds only the
	// last line.
	KeepLines bool
}

// Stop tells why a capture ended.
type Stop int

// Reasons for the end of a capture.
const (
	StopEOF     Stop = iota // input ended or hung up
	StopQuit                // the quit pattern matched
	StopTimeout             // Options.Timeout elapsed
)

func (s Stop) String() string {
	return [...]string{"eof", "quit", "timeout"}[s]
}

// Stamped is a line with its grabserial timestamps.
type Stamped struct {
	Line
	Abs   time.Duration // since the time base
	Delta time.Duration // since the start of the previous line
}

// Result is what a capture saw. Lines holds one entry per line (with
// Options.KeepLines; else only the last); a partial line that was
// completed later is replaced by its complete form. Cut counts lines that
// reached MaxLine and were cut there.
type Result struct {
	First      time.Time // arrival of the first byte
	Base       time.Time // time base at the end of the capture
	Lines      []Stamped
	Cut        int
	Milestones []Hit
	Stop       Stop
	// Sched is what the reading goroutine's threads obtained of
	// Options.Priority (Reader.Sched): "" when they run like the rest of
	// the process.
	Sched string
}

var errTimeout = errors.New("capture: capture timeout")

// Capture reads src (normally from OpenSerial or OpenUnix) until the input
// ends, the quit pattern matches, the timeout elapses or ctx is done. It
// returns a nil error for the first three; Result.Stop says which.
//
// Raw gets every byte read by the time the quit line is handed over, so
// after a quit it may end a few bytes past the quit line; bytes still
// queued in the kernel are not consumed.
func Capture(ctx context.Context, src io.Reader, opt Options) (*Result, error) {
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opt.Timeout, errTimeout)
		defer cancel()
	}
	rd := NewReaderPriority(src, opt.Idle, opt.Priority)
	rd.Raw = opt.Raw
	defer rd.Close()

	c := NewSession(opt)
	c.res.Sched = rd.Sched()
	for {
		l, err := rd.Next(ctx)
		if err != nil {
			switch {
			case err == io.EOF:
				return c.Finish(StopEOF)
			case ctx.Err() != nil && context.Cause(ctx) == errTimeout:
				return c.Finish(StopTimeout)
			}
			res, e := c.Finish(StopEOF)
			if e != nil {
				return res, e
			}
			return res, err
		}
		quit, err := c.Line(l)
		if err != nil {
			return c.res, err
		}
		if quit {
			return c.Finish(StopQuit)
		}
	}
}

// Session is what Capture does with each line (stamps, the time base,
// milestones, the printed form, the quit pattern), for a caller that
// reads the lines itself: one that also follows the runner's plan
// through them. Options.Idle, Raw, Timeout and Priority are the reading
// side's and do not apply to it.
type Session struct {
	capturer
}

// NewSession starts a session with opt's patterns and output.
func NewSession(opt Options) *Session {
	ms := opt.Milestones
	if ms == nil {
		ms = DefaultMilestones()
	}
	return &Session{capturer{opt: opt, ms: ms, res: &Result{}}}
}

// Line handles one line from a Reader and reports whether it matched the
// quit pattern.
func (s *Session) Line(l Line) (quit bool, err error) { return s.line(l) }

// Finish ends the printed output and returns what the session saw, with
// stop as the reason the capture ended.
func (s *Session) Finish(stop Stop) (*Result, error) {
	s.res.Stop = stop
	return s.res, s.endOutput()
}

type capturer struct {
	opt  Options
	ms   []Milestone
	res  *Result
	prev time.Time // Start of the previous line
	open bool      // Out holds a partial line without its newline yet
}

// line handles one emission from the Reader and reports whether the quit
// pattern matched.
func (c *capturer) line(l Line) (bool, error) {
	r := c.res
	if r.First.IsZero() {
		r.First, r.Base = l.Start, l.Start
	}
	text := StripANSI(MatchText(l))
	if c.opt.Reset != nil && c.opt.Reset.MatchString(text) {
		r.Base = l.Start
	}
	s := Stamped{Line: l, Abs: l.Start.Sub(r.Base)}
	if l.Shown == 0 {
		if !c.prev.IsZero() {
			s.Delta = l.Start.Sub(c.prev)
		}
		c.prev = l.Start
		if !c.opt.KeepLines {
			r.Lines = r.Lines[:0]
		}
		r.Lines = append(r.Lines, s)
	} else {
		// Continuation of a line already emitted as partial: same start.
		s.Delta = r.Lines[len(r.Lines)-1].Delta
		r.Lines[len(r.Lines)-1] = s
	}
	if l.Cut {
		r.Cut++
	}
	for _, m := range c.ms {
		if _, seen := r.Milestone(m.Name); !seen && m.Pattern.MatchString(text) {
			r.Milestones = append(r.Milestones, Hit{Name: m.Name, Time: l.Start, Abs: s.Abs, Line: text})
		}
	}
	if err := c.print(s); err != nil {
		return false, err
	}
	return c.opt.Quit != nil && c.opt.Quit.MatchString(text), nil
}

// MatchPrefix is how much of a line the milestone, reset and quit
// patterns see: the lines they look for are short, and a hostile console's
// megabyte-long lines would otherwise cost a regular-expression scan each.
const MatchPrefix = 4096

// MatchText is the start of a line's text (MatchPrefix bytes), for patterns.
func MatchText(l Line) string {
	if len(l.Bytes) > MatchPrefix {
		return Line{Bytes: l.Bytes[:MatchPrefix]}.Text()
	}
	return l.Text()
}

// print writes the grabserial form. A line emitted in pieces gets one
// timestamp, printed with its first piece.
func (c *capturer) print(s Stamped) error {
	w := c.opt.Out
	if w == nil {
		return nil
	}
	var b []byte
	if s.Shown == 0 {
		b = fmt.Appendf(b, "[%11.6f %9.6f] ", s.Abs.Seconds(), s.Delta.Seconds())
	}
	if s.Partial {
		b = append(b, s.New()...)
		c.open = true
	} else {
		// The terminator is written as a plain "\n"; the raw log keeps the
		// original "\r\n".
		body := s.New()
		if n := len(s.Bytes) - len(s.Text()); n <= len(body) {
			body = body[:len(body)-n]
		} else {
			body = nil
		}
		b = append(append(b, body...), '\n')
		c.open = false
	}
	_, err := w.Write(b)
	return err
}

func (c *capturer) endOutput() error {
	if !c.open || c.opt.Out == nil {
		return nil
	}
	c.open = false
	_, err := c.opt.Out.Write([]byte{'\n'})
	return err
}
