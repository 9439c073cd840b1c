package plandiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the diff for people: the inputs that changed, then each
// variant's changes, breaking ones marked with "!" and their reason, and a
// summary line.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "compared: %s (sha256:%s)\n      to: %s (sha256:%s)\n", d.Old.Ref, short(d.Old.Fingerprint), d.New.Ref, short(d.New.Fingerprint))
	if len(d.Inputs) > 0 {
		b.WriteString("inputs:\n")
		for _, c := range d.Inputs {
			writeChange(&b, c)
		}
	}
	for _, v := range d.Variants {
		fmt.Fprintf(&b, "variant %s: %s\n", v.Name, v.Status)
		if v.Status == "added" || v.Status == "removed" {
			continue
		}
		for _, c := range v.Changes {
			writeChange(&b, c)
		}
	}
	b.WriteString(d.Summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeChange(b *strings.Builder, c Change) {
	mark := " "
	if c.Breaking != "" {
		mark = "!"
	}
	label := c.What
	switch c.Kind {
	case "moved", "resized":
		label = c.Kind
	case "added", "removed":
		label = c.What + " " + c.Kind
	}
	fmt.Fprintf(b, "  %s %s: %s", mark, c.Where, label)
	switch {
	case c.Old != "" && c.New != "":
		fmt.Fprintf(b, ": %s -> %s", c.Old, c.New)
	case c.New != "":
		fmt.Fprintf(b, ": %s", c.New)
	case c.Old != "":
		fmt.Fprintf(b, ": %s", c.Old)
	}
	if c.Affects == Tests {
		b.WriteString(" (tests only)")
	}
	b.WriteString("\n")
	if c.Breaking != "" {
		fmt.Fprintf(b, "      breaks an installed base: %s\n", c.Breaking)
	}
}

// Summary is one line: what the change changes.
func (d *Diff) Summary() string {
	switch {
	case d.Empty():
		return "no change: the images and the tests are the same"
	case d.Breaking:
		n := 0
		for _, v := range d.Variants {
			for _, c := range v.Changes {
				if c.Breaking != "" {
					n++
				}
			}
		}
		return fmt.Sprintf("the images change, and %d change(s) break an installed base", n)
	case d.ImageChanged:
		return "the images change"
	}
	return "only the tests change: the layout and the filesystems stay as they were, and the run plan baked into the root filesystem changes"
}

// WriteJSON writes the versioned JSON form.
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
