package resultframe

import (
	"encoding/base64"
	"fmt"
	"hash/crc32"
)

// FrameVersion is the version of the line format described in the package
// documentation. Bump it when anything inside the frame envelope changes.
const FrameVersion = 1

const (
	// MaxLineLen is the longest line Encode produces: well below the line
	// limits of busybox/getty, and short enough to survive a console that
	// caps its line buffer.
	MaxLineLen = 200
	// ChunkData is the number of base64 characters per chunk. The worst
	// case header ("@@FSB1 " id " 9999/9999 1048576 " ... " " crc "@@") is
	// 45 bytes, so 152 keeps every line within MaxLineLen.
	ChunkData = 152
	// maxChunks bounds <n>; at ChunkData it carries more than MaxPayload.
	maxChunks = 9999

	startMarker = "@@FSB"
	endMarker   = "@@"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// b64 is strict so that every payload has exactly one text: a flipped bit
// in the unused low bits of the last character is an error, not ignored.
var b64 = base64.RawURLEncoding.Strict()

// Encode turns r into frame lines, without line terminators. The runner
// should write each line with its newline in a single write(2), so that the
// kernel can interleave its messages between lines but rarely inside one.
//
// The decoded result equals r with strings made valid UTF-8, empty Metrics
// and Attrs as nil, and Version set to SchemaVersion when it was zero.
func Encode(r Result) ([]string, error) {
	n := normalize(r)
	payload, err := n.marshal()
	if err != nil {
		return nil, fmt.Errorf("resultframe: encode run %q seq %d: %w", r.RunID, r.Seq, err)
	}
	lines, err := frameLines(payload, FrameVersion)
	if err != nil {
		return nil, fmt.Errorf("resultframe: encode run %q seq %d: %w", r.RunID, r.Seq, err)
	}
	return lines, nil
}

// frameLines cuts a payload into the lines of one frame.
func frameLines(payload []byte, version int) ([]string, error) {
	text := b64.EncodeToString(payload)
	count := (len(text) + ChunkData - 1) / ChunkData
	if count > maxChunks {
		return nil, fmt.Errorf("%d chunks exceed %d", count, maxChunks)
	}
	id := crc32c(payload)
	lines := make([]string, 0, count)
	for i := 0; i < count; i++ {
		part := text[i*ChunkData : min((i+1)*ChunkData, len(text))]
		content := fmt.Sprintf("FSB%d %08x %d/%d %d %s", version, id, i+1, count, len(payload), part)
		lines = append(lines, fmt.Sprintf("@@%s %08x@@", content, crc32c([]byte(content))))
	}
	return lines, nil
}
