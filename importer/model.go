// Package importer turns a board's layout as a build system keeps it (a
// genimage configuration, a wic kickstart file, a systemd-repart
// directory: the subpackages read each) into a formatted fsbench spec
// that builds the same image. Every block of the spec names the line it
// came from, and an option the spec cannot say is reported at its line
// with what to do instead: an import never drops an option silently,
// and never lets an imported value add a line, an argument or a block to
// the spec it writes.
package importer

import (
	"errors"
	"fmt"
	"strings"
)

// Pos is a line of an imported file.
type Pos struct {
	File string // as the user named it, or relative to it for included files
	Line int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Finding is an option the spec does not carry as the source had it: an
// error when the image would differ, a note when only how it is built
// does.
type Finding struct {
	At     Pos
	Option string
	Text   string // what happens, and what to do instead
	Note   bool
}

func (f Finding) String() string {
	kind := "error"
	if f.Note {
		kind = "note"
	}
	return fmt.Sprintf("%s: %s: %s: %s", f.At, kind, f.Option, f.Text)
}

// SyntaxError is a file the importer cannot read, at its line.
type SyntaxError struct {
	At  Pos
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s: %s", e.At, e.Msg) }

// Error returns a SyntaxError.
func Error(at Pos, msg string) error { return &SyntaxError{At: at, Msg: msg} }

// AsSyntaxError tells whether err is a SyntaxError.
func AsSyntaxError(err error) bool {
	var se *SyntaxError
	return errors.As(err, &se)
}

// Spec is an imported layout in the terms of fsbench's spec language.
type Spec struct {
	Format    string // genimage, wks, repart
	Source    string // the imported file's name
	Variables []Variable
	Board     *Board
	Images    []*Image
	Findings  []Finding
}

// Refused tells whether an option was left out that changes the image.
func (s *Spec) Refused() bool {
	for _, f := range s.Findings {
		if !f.Note {
			return true
		}
	}
	return false
}

// Errorf records an option the spec cannot say.
func (s *Spec) Errorf(at Pos, option, format string, args ...any) {
	s.Findings = append(s.Findings, Finding{At: at, Option: option, Text: fmt.Sprintf(format, args...)})
}

// Notef records an option the spec says differently, with the same
// image.
func (s *Spec) Notef(at Pos, option, format string, args ...any) {
	s.Findings = append(s.Findings, Finding{At: at, Option: option, Text: fmt.Sprintf(format, args...), Note: true})
}

// Variable is a variable of the spec: a build system's path.
type Variable struct {
	Name        string
	Description string
	Default     *string
}

// AddVariable declares a variable once.
func (s *Spec) AddVariable(v Variable) {
	for _, o := range s.Variables {
		if o.Name == v.Name {
			return
		}
	}
	s.Variables = append(s.Variables, v)
}

// Board is what an import says of the board: the kernel's arguments
// (wic's bootloader --append).
type Board struct {
	At         Pos
	KernelArgs []string
}

// Image is one image block.
type Image struct {
	At           Pos
	What         string // the source's words for it, for its comment
	Title        string // the source's name of the image (its output file, for genimage)
	Name         string
	Table        string // gpt, mbr, none
	Size         int64  // 0: from the partitions
	SizeVar      string // the size is this variable's value
	Align        int64  // 0: fsbench's default
	DiskID       string
	GPTLocation  int64
	NoGPTBackup  bool
	HybridMBR    []string
	ExtendedSlot int
	Fill         byte
	Partitions   []*Partition
	Raw          []*Raw
}

// Partition is one partition block.
type Partition struct {
	At   Pos
	What string
	Name string
	Size int64 // 0: from the image file, or Grow
	// SizeExpr, when set, is the size as an expression of the spec's
	// variables, built by the importer from numbers and variable names
	// only (wic's arithmetic over the contents' size).
	SizeExpr   string
	Grow       bool
	Offset     int64 // -1: after the previous one
	Align      int64 // 0: the image's
	Type       string
	MBRType    string
	Bootable   bool
	Label      string
	UUID       string
	UUIDVar    string // the UUID is this variable's value
	Logical    bool
	Image      Text // a prebuilt image
	Filesystem *Filesystem
	Notes      []string // said in the block's comment
}

// Filesystem is a partition's filesystem and contents.
type Filesystem struct {
	Type      string
	Label     string
	UUID      string
	Features  []string
	NoJournal bool
	Dir       Text // contents dir
	Files     []File
}

// File is a file or a directory placed at a path.
type File struct {
	At     Pos
	Path   string
	Source Text
}

// Raw is a raw region.
type Raw struct {
	At     Pos
	What   string
	Name   string
	Offset int64
	Size   int64 // 0: the file's
	File   Text
	Holes  [][2]int64 // offset, size
}

// Text is a string made of literal pieces and variables: the path
// "${var.binaries}/u-boot.bin" is {Var: "binaries"}, {Lit: "/u-boot.bin"}.
type Text []Seg

// Seg is a literal piece or a variable of a Text.
type Seg struct {
	Lit string
	Var string
}

// Lit is a Text of literal text.
func Lit(s string) Text { return Text{{Lit: s}} }

// In is the path rel under the variable dir.
func In(dir string, rel Text) Text {
	return append(Text{{Var: dir}, {Lit: "/"}}, rel...)
}

// IsZero tells whether t is empty.
func (t Text) IsZero() bool { return len(t) == 0 }

func (t Text) String() string {
	var b strings.Builder
	for _, s := range t {
		if s.Var != "" {
			b.WriteString("${var." + s.Var + "}")
		} else {
			b.WriteString(s.Lit)
		}
	}
	return b.String()
}

// IsGUID tells whether s is a GUID written as 8-4-4-4-12 hexadecimal
// digits, as genimage and wic take them.
func IsGUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, ch := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if ch != '-' {
				return false
			}
		} else if !strings.ContainsRune("0123456789abcdefABCDEF", ch) {
			return false
		}
	}
	return true
}
