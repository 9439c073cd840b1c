package resultframe

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Code classifies a Problem.
type Code string

// The problems a Decoder reports.
const (
	CodeChecksum  Code = "checksum"  // line or payload CRC mismatch
	CodeLength    Code = "length"    // payload length wrong or out of range
	CodeVersion   Code = "version"   // frame or schema version newer than this host
	CodeMalformed Code = "malformed" // markers or fields broken
	CodeTruncated Code = "truncated" // chunks missing, out of order, or a frame cut short
	CodeDuplicate Code = "duplicate" // a chunk or a result (run, seq) received twice
	CodeConflict  Code = "conflict"  // a different result under a known (run, seq)
	CodeGap       Code = "gap"       // sequence numbers skipped: results lost
	CodeInvalid   Code = "invalid"   // intact payload that is not a valid Result
)

// Problem is a frame, or a part of one, that the Decoder refused, or a
// result that it knows is missing.
type Problem struct {
	Code    Code
	Message string
	// Text is the offending console text (for several chunks, their lines
	// joined by "\n"); empty when the problem is an absence, such as a gap.
	Text string
}

func (p *Problem) Error() string { return "resultframe: " + string(p.Code) + ": " + p.Message }

// Event is one thing the Decoder found; exactly one field is set.
type Event struct {
	// Text is console output that is not part of a frame, byte for byte as
	// received, line terminator included. A line that held only frames
	// yields no text, so echoing Text shows the console without frames.
	Text    string
	Result  *Result
	Problem *Problem
}

// maxLine bounds how much the Decoder buffers while waiting for a newline.
const maxLine = 64 << 10

// Decoder finds result frames in console output. Feed it everything the
// console printed, in order; it is not safe for concurrent use.
type Decoder struct {
	buf     []byte
	cur     *partial
	dropped string // id of an abandoned frame whose later chunks are ignored
	seen    map[seqKey]string
	maxSeq  map[string]uint64
	out     []Event
	// held is the start of a frame line that a kernel message cut
	// (see kernelSplit), waiting for the rest on the next line; heldLine
	// is the whole line, reported as damaged if the rest does not come.
	held, heldLine string
}

type seqKey struct {
	run string
	seq uint64
}

// partial is a frame whose first chunks have arrived.
type partial struct {
	first chunk
	parts []string
	raws  []string
	size  int
}

// NewDecoder returns a Decoder that has seen nothing yet.
func NewDecoder() *Decoder {
	return &Decoder{seen: map[seqKey]string{}, maxSeq: map[string]uint64{}}
}

// Seen tells the Decoder that (runID, seq) was already received, for
// example in an earlier capture of the same run, so that a re-sent copy is
// reported as a duplicate.
func (d *Decoder) Seen(runID string, seq uint64) {
	d.seen[seqKey{runID, seq}] = ""
	if seq > d.maxSeq[runID] {
		d.maxSeq[runID] = seq
	}
}

// Feed takes console bytes in any pieces and returns the events of the
// lines they complete. Text after the last newline waits for more input or
// for Close.
func (d *Decoder) Feed(p []byte) []Event {
	d.buf = append(d.buf, p...)
	for {
		i := bytes.IndexByte(d.buf, '\n')
		if i < 0 {
			break
		}
		d.line(string(d.buf[:i+1]))
		d.buf = d.buf[i+1:]
	}
	if len(d.buf) > maxLine {
		// A line this long is not console output we can wait for.
		d.line(string(d.buf))
		d.buf = nil
	}
	return d.take()
}

// FeedLine is Feed for callers that split lines themselves; a missing
// terminator is supplied.
func (d *Decoder) FeedLine(line string) []Event {
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	return d.Feed([]byte(line))
}

// Close ends the stream: the unfinished last line is decoded and a frame
// still waiting for chunks is reported as truncated. The Decoder can be fed
// again afterwards; it keeps what it knows about sequence numbers.
func (d *Decoder) Close() []Event {
	if len(d.buf) > 0 {
		d.line(string(d.buf))
		d.buf = nil
	}
	if d.held != "" {
		d.plainLine(d.heldLine)
		d.held, d.heldLine = "", ""
	}
	d.abandon("stream ended")
	d.dropped = ""
	return d.take()
}

func (d *Decoder) take() []Event {
	out := d.out
	d.out = nil
	return out
}

func (d *Decoder) text(s string)      { d.out = append(d.out, Event{Text: s}) }
func (d *Decoder) problem(p *Problem) { d.out = append(d.out, Event{Problem: p}) }

// line decodes one console line. The kernel writes its messages to the
// console directly, not through the tty the runner writes to, so a
// message can land in the middle of a frame line: the line then holds the
// start of the chunk and the message, and the next line the rest of the
// chunk. The two parts are joined again and accepted only when the
// chunk's checksum says they are exactly the line the runner wrote.
func (d *Decoder) line(line string) {
	if d.held != "" {
		prefix, orig := d.held, d.heldLine
		d.held, d.heldLine = "", ""
		if end := orphanEnd(line); end >= 0 && !strings.Contains(line[:end], startMarker) {
			if c, prob := parseChunk(prefix + line[:end]); prob == nil {
				d.chunk(c)
				if rest := line[end:]; strings.Trim(rest, "\r\n") != "" {
					d.line(rest)
				}
				return
			}
		}
		d.plainLine(orig)
	}
	if before, prefix, msg, ok := kernelSplit(line); ok {
		if before != "" {
			d.text(before)
		}
		d.text(msg)
		d.held, d.heldLine = prefix, line
		return
	}
	d.plainLine(line)
}

// kernelTimestamp is the start of a kernel console message, "[   55.722679] ".
var kernelTimestamp = regexp.MustCompile(`\[ *[0-9]+\.[0-9]{6}\] `)

// kernelSplit finds a frame line cut by a kernel message: a frame start
// with no end marker after it, and a kernel timestamp inside. It returns
// the text before the frame, the frame's start and the message.
func kernelSplit(line string) (before, prefix, msg string, ok bool) {
	s := strings.LastIndex(line, startMarker)
	if s < 0 || strings.Contains(line[s+len(startMarker):], endMarker) {
		return "", "", "", false
	}
	loc := kernelTimestamp.FindStringIndex(line[s:])
	if loc == nil {
		return "", "", "", false
	}
	k := s + loc[0]
	return line[:s], line[s:k], line[k:], true
}

func (d *Decoder) plainLine(line string) {
	pieces := splitLine(line)
	hadFrame := false
	for _, p := range pieces {
		if p.frame {
			hadFrame = true
		}
	}
	for _, p := range pieces {
		switch {
		case p.frame:
			c, prob := parseChunk(p.text)
			if prob != nil {
				d.problem(prob)
			} else {
				d.chunk(c)
			}
		case hadFrame && strings.Trim(p.text, "\r\n") == "":
			// Only the line terminator of a frame line: drop it, so a
			// frame line vanishes from the pass-through text.
		default:
			d.text(p.text)
		}
	}
}

// abandon reports the partial frame, if any, as truncated.
func (d *Decoder) abandon(why string) {
	f := d.cur
	if f == nil {
		return
	}
	d.cur = nil
	d.dropped = f.first.id
	d.problem(&Problem{
		Code: CodeTruncated,
		Message: fmt.Sprintf("frame %s: %s after chunk %d of %d; chunks %d..%d missing",
			f.first.id, why, len(f.parts), f.first.n, len(f.parts)+1, f.first.n),
		Text: strings.Join(f.raws, "\n"),
	})
}

func (d *Decoder) drop(c chunk, code Code, format string, args ...any) {
	text := c.raw
	if d.cur != nil {
		text = strings.Join(append(d.cur.raws, c.raw), "\n")
	}
	d.cur = nil
	d.dropped = c.id
	d.problem(&Problem{Code: code, Message: fmt.Sprintf("frame %s: ", c.id) + fmt.Sprintf(format, args...), Text: text})
}

// chunk takes one intact chunk. Chunks must come in order and exactly once:
// the runner writes them so and a serial line does not reorder, so anything
// else means lost output.
func (d *Decoder) chunk(c chunk) {
	if d.cur != nil && (d.cur.first.id != c.id || c.i == 1) {
		// Another frame, or this one restarted (a re-send after a reboot).
		d.abandon(fmt.Sprintf("chunk %d/%d of frame %s arrived", c.i, c.n, c.id))
	}
	if d.cur == nil {
		switch {
		case c.i == 1:
			d.dropped = ""
			d.cur = &partial{first: c}
		case c.id == d.dropped:
			return // the rest of a frame already reported
		default:
			d.drop(c, CodeTruncated, "chunk %d/%d without chunks 1..%d", c.i, c.n, c.i-1)
			return
		}
	}
	f := d.cur
	next := len(f.parts) + 1
	switch {
	case c.n != f.first.n || c.plen != f.first.plen:
		d.drop(c, CodeMalformed, "chunk %d/%d (length %d) disagrees with chunk 1/%d (length %d)", c.i, c.n, c.plen, f.first.n, f.first.plen)
		return
	case c.i < next && f.parts[c.i-1] == c.data:
		d.problem(&Problem{Code: CodeDuplicate, Message: fmt.Sprintf("frame %s: chunk %d/%d repeated; copy ignored", c.id, c.i, c.n), Text: c.raw})
		return
	case c.i < next:
		d.drop(c, CodeMalformed, "chunk %d/%d repeated with different data", c.i, c.n)
		return
	case c.i > next:
		d.drop(c, CodeTruncated, "chunk %d/%d arrived after chunk %d; chunks %d..%d missing or out of order", c.i, c.n, next-1, next, c.i-1)
		return
	}
	f.parts = append(f.parts, c.data)
	f.raws = append(f.raws, c.raw)
	f.size += len(c.data)
	if want := b64.EncodedLen(f.first.plen); f.size > want || c.i == c.n && f.size != want {
		d.drop(c, CodeLength, "%d base64 characters for a payload of %d bytes (want %d)", f.size, f.first.plen, want)
		return
	}
	if c.i == c.n {
		d.cur = nil
		d.complete(f)
	}
}

// complete checks a reassembled frame and yields its result.
func (d *Decoder) complete(f *partial) {
	text := strings.Join(f.raws, "\n")
	fail := func(code Code, format string, args ...any) {
		d.problem(&Problem{Code: code, Message: fmt.Sprintf("frame %s: ", f.first.id) + fmt.Sprintf(format, args...), Text: text})
	}
	payload, err := b64.DecodeString(strings.Join(f.parts, ""))
	if err != nil {
		fail(CodeMalformed, "bad base64: %v", err)
		return
	}
	if len(payload) != f.first.plen {
		fail(CodeLength, "payload is %d bytes, header says %d", len(payload), f.first.plen)
		return
	}
	if got := fmt.Sprintf("%08x", crc32c(payload)); got != f.first.id {
		fail(CodeChecksum, "payload checksum %s does not match (chunks of different frames?)", got)
		return
	}
	r, err := unmarshalResult(payload)
	if errors.Is(err, errNewerSchema) {
		fail(CodeVersion, "%v", err)
		return
	}
	if err != nil {
		fail(CodeInvalid, "payload is not a valid result: %v", err)
		return
	}
	key := seqKey{r.RunID, r.Seq}
	if prev, ok := d.seen[key]; ok {
		if prev == "" || prev == f.first.id {
			fail(CodeDuplicate, "result run %q seq %d already received; copy ignored", r.RunID, r.Seq)
		} else {
			fail(CodeConflict, "result run %q seq %d differs from the one received before; ignored", r.RunID, r.Seq)
		}
		return
	}
	if last, ok := d.maxSeq[r.RunID]; ok && r.Seq > last+1 {
		d.problem(&Problem{Code: CodeGap, Message: fmt.Sprintf("run %q: results seq %d..%d missing", r.RunID, last+1, r.Seq-1)})
	}
	d.seen[key] = f.first.id
	if r.Seq > d.maxSeq[r.RunID] {
		d.maxSeq[r.RunID] = r.Seq
	}
	d.out = append(d.out, Event{Result: &r})
}
