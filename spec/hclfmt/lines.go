package hclfmt

import "bytes"

// splitLines cuts text into lines that keep their "\n". The last line
// lacks it when the text does not end with a newline, which is how the
// diff tells "x" and "x\n" apart, as diff(1) does.
func splitLines(text []byte) []string {
	var lines []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		lines = append(lines, string(text[:i]))
		text = text[i:]
	}
	return lines
}
