// Package resultframe moves test results from the target to the host over a
// serial console: the runner turns each Result into one or more framed lines
// (Encode), and the host feeds everything it captured to a Decoder, which
// hands back the results, the problems it found, and the console text that
// was not part of any frame.
//
// Two rules are not negotiable, and every change must keep them:
//
//   - A corrupted, truncated, reordered or foreign frame is reported as a
//     Problem and never accepted as a Result. A console is a lossy channel
//     (the kernel prints into the middle of lines, bytes get dropped at
//     115200 baud, boards reset mid-line); a wrong number in a report is far
//     worse than a missing one, because the missing one is visible.
//   - The package imports only the standard library: fsbench-runner is a
//     small static binary that imports it, and the host must decode with
//     exactly the same code.
//
// # Frame format (frame version 1)
//
// A Result is marshalled to JSON (the payload), the payload is encoded with
// unpadded base64url (RFC 4648 §5) and the text is cut into pieces of at most
// ChunkData characters. Each piece becomes one line of printable ASCII, at most
// MaxLineLen bytes, so that no getty/busybox line limit cuts it:
//
//	@@FSB1 <id> <i>/<n> <len> <data> <crc>@@
//
//	@@FSB1    start marker and frame version (decimal)
//	<id>      CRC-32C of the whole payload, 8 lowercase hex digits; it names
//	          the frame (all its chunks carry it) and checks the reassembly
//	<i>/<n>   this chunk's number, 1-based, and the number of chunks
//	<len>     payload length in bytes, before base64
//	<data>    this chunk's base64url text
//	<crc>     CRC-32C of everything between the start "@@" and the space
//	          before <crc>, 8 lowercase hex digits
//	@@        end marker
//
// The envelope — "@@FSB<version> ", the trailing " <crc>@@", and that the
// body never contains '@' — is frozen for all future versions, so an old
// host can tell an intact frame of a newer version ("upgrade fsbench") from a
// corrupted one ("checksum mismatch").
//
// Why this shape:
//   - Markers are '@@' because '@' never occurs in base64url, hex or decimal,
//     so the first "@@" after a start marker is its end, and anything printed
//     before or after a frame on the same line (kernel messages, prompts,
//     "\r" from CR/LF conversion, ANSI escapes) is just console text.
//   - Anything inserted *into* a frame (a kernel message, "\r", an escape
//     sequence) breaks the line CRC; the chunk is reported, never repaired.
//     CRC-32C detects every error burst up to 32 bits, so every single-byte
//     change is caught; an insertion or deletion also changes the length,
//     which <len> and the strict base64 decoding catch.
//   - A single-byte change can damage at most one of the two markers, so a
//     damaged frame is still recognised by the marker that survived — a
//     start "@@FSB", or an end " <8 hex>@@" — and reported instead of being
//     mistaken for console text.
//   - Chunks of a frame must arrive in order, each exactly once: a serial
//     line does not reorder, so a gap, a reordering or a chunk from another
//     frame means output was lost, and the frame is dropped and reported.
//     A repeated chunk is reported and ignored; a restarted frame (chunk 1
//     again, e.g. after a reboot) abandons the partial one.
//
// # Results and exactly-once
//
// The payload carries a schema version (SchemaVersion) and, for each
// result, a run id and a sequence number that the runner keeps in its state
// file across reboots. The Decoder yields each (run, seq) once: a re-sent
// result is reported as a duplicate, a different result under a known
// (run, seq) as a conflict, and a jump in the sequence as a gap, so that a
// frame lost entirely (both markers destroyed) still shows up as a missing
// sequence number once a later result arrives.
package resultframe
