package resultframe

import (
	"fmt"
	"strconv"
	"strings"
)

// chunk is one intact, well-formed frame line.
type chunk struct {
	id   string // payload CRC-32C, as the 8 hex digits of the line
	i, n int
	plen int
	data string
	raw  string
}

// piece is a part of a console line: text, or a frame candidate (a span
// that starts or ends like a frame).
type piece struct {
	text  string
	frame bool
}

// splitLine cuts one console line into text and frame candidates. It looks
// for both markers because a single damaged byte can destroy one of them but
// never both: a start "@@FSB" runs to the next "@@" (or to the end of the
// line), and an end " <8 hex>@@" without a start runs back to the previous
// piece, so that the damaged frame is reported rather than passed as text.
func splitLine(line string) []piece {
	var out []piece
	pos := 0
	for pos < len(line) {
		rest := line[pos:]
		s := strings.Index(rest, startMarker)
		region := rest
		if s >= 0 {
			region = rest[:s]
		}
		if o := orphanEnd(region); o >= 0 {
			out = append(out, piece{text: rest[:o], frame: true})
			pos += o
			continue
		}
		if s < 0 {
			out = append(out, piece{text: rest})
			break
		}
		if s > 0 {
			out = append(out, piece{text: rest[:s]})
		}
		e := strings.Index(rest[s+len(endMarker):], endMarker)
		if e < 0 {
			// No end: the frame runs to the end of the line, whose
			// terminator is text (it is not part of any frame).
			body := strings.TrimRight(rest[s:], "\r\n")
			out = append(out, piece{text: body, frame: true})
			if t := rest[s+len(body):]; t != "" {
				out = append(out, piece{text: t})
			}
			break
		}
		end := s + len(endMarker) + e + len(endMarker)
		out = append(out, piece{text: rest[s:end], frame: true})
		pos += end
	}
	return out
}

// orphanEnd returns the offset just past the first " <8 lowercase hex>@@"
// in s, or -1.
func orphanEnd(s string) int {
	for from := 0; ; {
		k := strings.Index(s[from:], endMarker)
		if k < 0 {
			return -1
		}
		k += from
		if k >= 9 && s[k-9] == ' ' && isHex8(s[k-8:k]) {
			return k + len(endMarker)
		}
		from = k + 1
	}
}

func isHex8(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseChunk checks one frame candidate and returns its chunk, or the
// problem that makes it unusable.
func parseChunk(raw string) (chunk, *Problem) {
	bad := func(code Code, format string, args ...any) (chunk, *Problem) {
		return chunk{}, &Problem{Code: code, Message: fmt.Sprintf(format, args...), Text: raw}
	}
	if !strings.HasPrefix(raw, startMarker) {
		return bad(CodeMalformed, "frame end without a valid start marker")
	}
	if len(raw) < len(startMarker)+len(endMarker) || !strings.HasSuffix(raw, endMarker) {
		return bad(CodeTruncated, "frame start without an end marker (line cut or interrupted)")
	}
	body := raw[len(endMarker) : len(raw)-len(endMarker)]
	// The envelope is the same for every frame version: check the line CRC
	// first, so that corruption is never misreported as a version problem.
	if len(body) < 9 || body[len(body)-9] != ' ' || !isHex8(body[len(body)-8:]) {
		return bad(CodeMalformed, "frame without a line checksum")
	}
	content := body[:len(body)-9]
	want, _ := strconv.ParseUint(body[len(body)-8:], 16, 32)
	if got := crc32c([]byte(content)); uint32(want) != got {
		return bad(CodeChecksum, "line checksum mismatch (want %08x, got %08x): bytes lost or inserted", want, got)
	}
	f := strings.Split(content, " ")
	ver, ok := decimal(strings.TrimPrefix(f[0], "FSB"), 1<<20)
	if !ok {
		return bad(CodeMalformed, "bad frame version %q", f[0])
	}
	if ver != FrameVersion {
		return bad(CodeVersion, "frame format version %d is not understood by this fsbench (it reads version %d): upgrade fsbench on the host", ver, FrameVersion)
	}
	if len(f) != 5 {
		return bad(CodeMalformed, "frame has %d fields, want 5", len(f))
	}
	c := chunk{id: f[1], data: f[4], raw: raw}
	is, ns, _ := strings.Cut(f[2], "/")
	var okI, okN, okL bool
	c.i, okI = decimal(is, maxChunks)
	c.n, okN = decimal(ns, maxChunks)
	c.plen, okL = decimal(f[3], MaxPayload)
	switch {
	case !isHex8(c.id):
		return bad(CodeMalformed, "bad frame id %q", c.id)
	case !okI || !okN || c.i < 1 || c.n < 1 || c.i > c.n:
		return bad(CodeMalformed, "bad chunk number %q", f[2])
	case !okL || c.plen < 1:
		return bad(CodeLength, "bad payload length %q", f[3])
	case c.data == "":
		return bad(CodeMalformed, "empty chunk")
	}
	return c, nil
}

// decimal parses a canonical non-negative decimal (no sign, no leading
// zero) of at most max.
func decimal(s string, max int) (int, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil || v > uint64(max) {
		return 0, false
	}
	return int(v), true
}
